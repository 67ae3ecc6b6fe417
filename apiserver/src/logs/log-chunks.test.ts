import { describe, expect, it } from '@jest/globals';
import {
  chunkDocId,
  cutIntoChunks,
  ID_SPAN,
  lineId,
  MAX_CHUNK_BYTES,
  MAX_CHUNK_LINES,
  ownerKey,
  splitLineId,
} from './log-chunks.js';

describe('line ids', () => {
  it('round-trip through their chunk and index and grow with both', () => {
    expect(splitLineId(lineId(7, 999))).toEqual({ chunk: 7, index: 999 });
    expect(lineId(8, 0)).toBeGreaterThan(lineId(7, MAX_CHUNK_LINES - 1));
    expect(MAX_CHUNK_LINES).toBeLessThanOrEqual(ID_SPAN);
    expect(splitLineId(0)).toEqual({ chunk: 0, index: 0 });
  });
});

describe('keys', () => {
  it('keep owners apart whatever their names hold', () => {
    const a = ownerKey({ accountId: 'a#1', environment: 'live', agentId: 'x' });
    const b = ownerKey({ accountId: 'a', environment: 'live', agentId: '1#x' });
    expect(a).not.toBe(b);
    expect(chunkDocId(a, 2)).not.toBe(chunkDocId(b, 2));
  });
});

describe('cutIntoChunks', () => {
  it(`cuts at ${MAX_CHUNK_LINES} lines and at ${MAX_CHUNK_BYTES} bytes, never inside a line`, () => {
    const short = Array.from({ length: MAX_CHUNK_LINES + 1 }, (_, i) => ({ message: `${i}` }));
    expect(cutIntoChunks(short).map((c) => c.length)).toEqual([MAX_CHUNK_LINES, 1]);
    const long = Array.from({ length: 5 }, () => ({ message: 'x'.repeat(400 * 1024) }));
    expect(cutIntoChunks(long).map((c) => c.length)).toEqual([2, 2, 1]);
    const huge = [{ message: 'x'.repeat(MAX_CHUNK_BYTES + 1) }, { message: 'y' }];
    expect(cutIntoChunks(huge).map((c) => c.length)).toEqual([1, 1]);
    expect(cutIntoChunks([])).toEqual([]);
  });
});
