import { describe, expect, it } from '@jest/globals';
import { firstIdOf, idMillis, IDS_PER_MS, LogIdAllocator } from './log-ids.js';

/** A clock that returns the given readings in turn, then repeats the last one. */
function readings(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)] as number;
}

describe('LogIdAllocator', () => {
  it('numbers ids ms * 1000 + seq, restarting seq each millisecond', () => {
    const ids = new LogIdAllocator(readings(5, 5, 5, 7, 7)).take(5);
    expect(ids).toEqual([5000, 5001, 5002, 7000, 7001]);
    expect(ids.map(idMillis)).toEqual([5, 5, 5, 7, 7]);
    expect(firstIdOf(7)).toBe(7000);
  });

  it('waits for the next millisecond once 1000 ids were drawn in one', () => {
    // 1000 readings of ms 10, then two more of 10 while it waits, then 11.
    const clock = readings(...Array<number>(IDS_PER_MS + 2).fill(10), 11);
    const ids = new LogIdAllocator(clock).take(IDS_PER_MS + 1);
    expect(ids[IDS_PER_MS - 1]).toBe(10_999);
    expect(ids[IDS_PER_MS]).toBe(11_000);
  });

  it('keeps increasing when the clock steps back or stands still', () => {
    const back = new LogIdAllocator(readings(100, 90, 90));
    expect(back.take(3)).toEqual([100_000, 100_001, 100_002]);

    const stopped = new LogIdAllocator(() => 42);
    const ids = stopped.take(2 * IDS_PER_MS + 1);
    expect(ids.at(-1)).toBe(44_000);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))).toBe(true);
  });

  it('stays an exact integer past the year 2200', () => {
    const id = new LogIdAllocator(() => Date.parse('2200-01-01T00:00:00Z')).next();
    expect(Number.isSafeInteger(id + IDS_PER_MS - 1)).toBe(true);
  });
});
