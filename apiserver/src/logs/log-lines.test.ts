import { describe, expect, it } from '@jest/globals';
import {
  inferLevel,
  levelWord,
  MAX_MESSAGE_BYTES,
  TRUNCATION_MARKER,
  truncateMessage,
} from './log-lines.js';

describe('inferLevel', () => {
  it('makes system events SYSTEM whatever they say', () => {
    expect(inferLevel('system', 'Deployment 3 is active')).toBe('SYSTEM');
    expect(inferLevel('system', 'ERROR: build failed')).toBe('SYSTEM');
  });

  it('makes plain stdout lines INFO and plain stderr lines ERROR', () => {
    expect(inferLevel('stdout', 'listening on 8080')).toBe('INFO');
    expect(inferLevel('stderr', 'Traceback (most recent call last):')).toBe('ERROR');
    expect(inferLevel('stderr', '')).toBe('ERROR');
  });

  it.each([
    ['WARNING:root:disk almost full', 'WARN'],
    ['INFO:root:started', 'INFO'],
    ['DEBUG:urllib3.connectionpool:Starting new HTTPS connection', 'DEBUG'],
    ['ERROR:app:boom', 'ERROR'],
    ['CRITICAL:root:out of memory', 'ERROR'],
    ['INFO:     Uvicorn running on http://0.0.0.0:8080', 'INFO'],
    ['WARN  retrying in 5s', 'WARN'],
    ['DEBUG', 'DEBUG'],
    ['[warn] slow query', 'WARN'],
    ['[INFO] ready', 'INFO'],
    ['<debug> cache miss', 'DEBUG'],
    ['warning: deprecated option', 'WARN'],
    ['  Info: indented', 'INFO'],
    ['FATAL crash', 'ERROR'],
  ])('reads the level word of %j on stderr as %s', (line, level) => {
    expect(inferLevel('stderr', line)).toBe(level);
  });

  it('honours a level word on stdout too', () => {
    expect(inferLevel('stdout', 'ERROR: could not connect')).toBe('ERROR');
    expect(inferLevel('stdout', 'WARNING:root:slow')).toBe('WARN');
  });

  it.each([
    'Error handling enabled',
    'INFORMATION follows',
    'Warnings were emitted',
    'see ERROR: above',
    'WARNINGS: none',
  ])('finds no level word in %j', (line) => {
    expect(levelWord(line)).toBeNull();
    expect(inferLevel('stderr', line)).toBe('ERROR');
    expect(inferLevel('stdout', line)).toBe('INFO');
  });
});

describe('truncateMessage', () => {
  it('keeps a message that fits, to the byte', () => {
    const exact = 'x'.repeat(MAX_MESSAGE_BYTES);
    expect(truncateMessage(exact)).toBe(exact);
    expect(truncateMessage('')).toBe('');
  });

  it('cuts a longer message to the cap, marker included', () => {
    const cut = truncateMessage('x'.repeat(MAX_MESSAGE_BYTES + 1));
    expect(Buffer.byteLength(cut)).toBe(MAX_MESSAGE_BYTES);
    expect(cut.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(cut.startsWith('xxx')).toBe(true);
  });

  it('never splits a multi-byte character or a surrogate pair', () => {
    // The marker is 14 bytes; a budget of 20 - 14 = 6 bytes holds one 4-byte emoji, not two.
    expect(truncateMessage('😀😀😀😀😀😀', 20)).toBe(`😀${TRUNCATION_MARKER}`);
    expect(truncateMessage('ééééééééééééééé', 20)).toBe(`ééé${TRUNCATION_MARKER}`);
  });
});
