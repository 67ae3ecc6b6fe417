import { describe, expect, it } from '@jest/globals';
import type { LogEntry } from '../api/types.js';
import { appendNewer, logQuery, MAX_SHOWN, prependOlder } from './log-query.js';

const entry = (id: number): LogEntry => ({
  id,
  timestamp: '',
  stream: 'stdout',
  level: 'INFO',
  message: `${id}`,
});

describe('logQuery', () => {
  it('sends filters only when they narrow, and one cursor', () => {
    expect(logQuery({ streams: [], levels: [] }, {})).toBe('limit=100');
    expect(
      logQuery({ streams: ['stdout', 'stderr', 'system'], levels: ['ERROR'] }, { after_id: 5 }),
    ).toBe('limit=100&level=ERROR&after_id=5');
    expect(logQuery({ streams: ['stderr'], levels: [] }, { before_id: 9 }, 50)).toBe(
      'limit=50&stream=stderr&before_id=9',
    );
  });
});

describe('joining pages', () => {
  it('appends newer entries once and caps the total', () => {
    expect(appendNewer([entry(1), entry(2)], [entry(2), entry(3)]).map((e) => e.id)).toEqual([
      1, 2, 3,
    ]);
    const many = Array.from({ length: MAX_SHOWN }, (_, i) => entry(i));
    const joined = appendNewer(many, [entry(MAX_SHOWN)]);
    expect(joined.length).toBe(MAX_SHOWN);
    expect(joined[joined.length - 1]!.id).toBe(MAX_SHOWN);
  });

  it('prepends older entries', () => {
    expect(prependOlder([entry(5)], [entry(3), entry(4), entry(5)]).map((e) => e.id)).toEqual([
      3, 4, 5,
    ]);
  });
});
