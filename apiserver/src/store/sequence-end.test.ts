import { describe, expect, it } from '@jest/globals';
import { firstHolding, sequenceEnd } from './sequence-end.js';

/** A stored range first..last, counting lookups. */
function range(first: number, last: number) {
  const seen = { lookups: 0 };
  const exists = async (n: number) => {
    seen.lookups += 1;
    return n >= first && n <= last;
  };
  return { exists, seen };
}

describe('sequenceEnd', () => {
  it('finds the last number from any known one, in a few lookups', async () => {
    for (const [from, last] of [
      [0, 0],
      [0, 1],
      [0, 1000],
      [500, 1000],
      [1000, 1000],
      [6, 7],
    ] as const) {
      const { exists, seen } = range(1, last);
      expect(await sequenceEnd(from, exists)).toBe(last);
      expect(seen.lookups).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(last - from + 2)) + 2);
    }
  });

  it('starts below the first number of a range that no longer starts at 1', async () => {
    expect(await sequenceEnd(41, range(42, 99).exists)).toBe(99);
    expect(await sequenceEnd(41, range(42, 41).exists)).toBe(41);
  });
});

describe('firstHolding', () => {
  it('finds where a test turns true between a false and a true end', async () => {
    for (const [low, high, turn] of [
      [0, 1, 1],
      [3, 100, 4],
      [3, 100, 100],
      [3, 100, 57],
    ] as const) {
      expect(await firstHolding(low, high, async (n) => n >= turn)).toBe(turn);
    }
  });
});
