import { describe, expect, it } from '@jest/globals';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const options = { baseDelayMs: 200, maxDelayMs: 60_000, jitter: 0.1 };

  it('doubles from the base delay per failure and stops at the cap', () => {
    const exact = (n: number) => backoffDelay(n, options, () => 0.5);
    expect([1, 2, 3, 4, 5].map(exact)).toEqual([200, 400, 800, 1600, 3200]);
    expect(exact(9)).toBe(51_200);
    expect(exact(10)).toBe(60_000);
    expect(exact(10_000)).toBe(60_000);
  });

  it('spreads delays by the jitter fraction without exceeding the cap', () => {
    expect(backoffDelay(3, options, () => 0)).toBe(720);
    expect(backoffDelay(3, options, () => 0.999999)).toBe(880);
    expect(backoffDelay(20, options, () => 0.999999)).toBe(60_000);
    expect(backoffDelay(20, options, () => 0)).toBe(54_000);
  });
});
