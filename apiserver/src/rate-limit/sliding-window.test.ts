import { describe, expect, it } from '@jest/globals';
import { bucketStart, evaluateWindow } from './sliding-window.js';

// A bucket boundary: 1_700_000_040_000 = 28_333_334 * 60_000.
const T0 = 1_700_000_040_000;
const at = (elapsedMs: number) => T0 + elapsedMs;

describe('bucketStart', () => {
  it('aligns timestamps on multiples of the window', () => {
    expect(bucketStart(T0)).toBe(T0);
    expect(bucketStart(T0 + 59_999)).toBe(T0);
    expect(bucketStart(T0 + 60_000)).toBe(T0 + 60_000);
    expect(bucketStart(T0 - 1)).toBe(T0 - 60_000);
    expect(bucketStart(25_000, 10_000)).toBe(20_000);
  });
});

describe('evaluateWindow', () => {
  it('allows a request under the limit', () => {
    // estimate = 0 + 10 = 10 <= 100; remaining = 90; reset = 60 - 15 = 45 s.
    expect(evaluateWindow({ previous: 0, current: 10 }, 100, at(15_000))).toEqual({
      allowed: true,
      remaining: 90,
      resetSeconds: 45,
      retryAfterSeconds: 0,
    });
  });

  it('allows a request exactly at the limit', () => {
    // estimate = 100 <= 100; remaining = 0.
    expect(evaluateWindow({ previous: 0, current: 100 }, 100, at(15_000))).toMatchObject({
      allowed: true,
      remaining: 0,
    });
  });

  it('rejects a request over the limit', () => {
    // estimate = 101 > 100; remaining = max(0, -1) = 0.
    expect(evaluateWindow({ previous: 0, current: 101 }, 100, at(15_000))).toMatchObject({
      allowed: false,
      remaining: 0,
    });
  });

  it('weights the previous bucket by 75% at 25% elapsed', () => {
    // 25% elapsed = 15 s: 80 * 0.75 = 60; 60 + 40 = 100 <= 100.
    expect(evaluateWindow({ previous: 80, current: 40 }, 100, at(15_000))).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    // 60 + 41 = 101 > 100.
    expect(evaluateWindow({ previous: 80, current: 41 }, 100, at(15_000)).allowed).toBe(false);
  });

  it('weights the previous bucket by 50% at 50% elapsed', () => {
    // 30 s: 80 * 0.5 = 40; 40 + 60 = 100 <= 100.
    expect(evaluateWindow({ previous: 80, current: 60 }, 100, at(30_000)).allowed).toBe(true);
    // 40 + 61 = 101 > 100.
    expect(evaluateWindow({ previous: 80, current: 61 }, 100, at(30_000)).allowed).toBe(false);
    // 40 + 30 = 70: remaining 30; reset = 60 - 30 = 30 s.
    expect(evaluateWindow({ previous: 80, current: 30 }, 100, at(30_000))).toEqual({
      allowed: true,
      remaining: 30,
      resetSeconds: 30,
      retryAfterSeconds: 0,
    });
  });

  it('weights the previous bucket by 10% at 90% elapsed', () => {
    // 54 s: 80 * 0.1 = 8; 8 + 92 = 100 <= 100; 8 + 93 = 101 > 100.
    expect(evaluateWindow({ previous: 80, current: 92 }, 100, at(54_000)).allowed).toBe(true);
    expect(evaluateWindow({ previous: 80, current: 93 }, 100, at(54_000)).allowed).toBe(false);
  });

  it('floors remaining on a fractional estimate and rounds reset up', () => {
    // 54 s: 75 * 0.1 = 7.5; 7.5 + 50 = 57.5; remaining = floor(42.5) = 42; reset = 6 s.
    expect(evaluateWindow({ previous: 75, current: 50 }, 100, at(54_000))).toEqual({
      allowed: true,
      remaining: 42,
      resetSeconds: 6,
      retryAfterSeconds: 0,
    });
    // 10.5 s into the bucket: reset = ceil(49.5) = 50 s.
    expect(evaluateWindow({ previous: 0, current: 1 }, 100, at(10_500)).resetSeconds).toBe(50);
    // At the very start the whole bucket remains: 60 s; 1 ms before its end: 1 s.
    expect(evaluateWindow({ previous: 0, current: 1 }, 100, at(0)).resetSeconds).toBe(60);
    expect(evaluateWindow({ previous: 0, current: 1 }, 100, at(59_999)).resetSeconds).toBe(1);
  });

  describe('retryAfterSeconds', () => {
    it('waits for the rollover, then for the old bucket to fade (current bucket full)', () => {
      // limit 100, previous 0, current 101 at 10.5 s. Take the rejected one back: current 100.
      // Same bucket (s <= 49): 0 + 100 + 1 = 101 > 100.
      // Rollover at 49.5 s; then previous = 100, current = 1:
      //   s = 50 -> 0.5 s in: 100 * (1 - 0.5/60) + 1 = 99.17 + 1 = 100.17 > 100
      //   s = 51 -> 1.5 s in: 100 * (1 - 1.5/60) + 1 = 97.5 + 1 = 98.5 <= 100
      expect(evaluateWindow({ previous: 0, current: 101 }, 100, at(10_500))).toEqual({
        allowed: false,
        remaining: 0,
        resetSeconds: 50,
        retryAfterSeconds: 51,
      });
    });

    it('hits the limit exactly after the rollover (integer arithmetic)', () => {
      // limit 10, previous 0, current 11 at 30 s. Taken back: current 10.
      // Rollover at s = 30; then 10 * (1 - f) + 1 <= 10 needs f >= 0.1, i.e. 6 s in:
      //   s = 35 -> 5 s in: 10 * 55/60 + 1 = 10.17 > 10
      //   s = 36 -> 6 s in: 10 * 54/60 + 1 = 9 + 1 = 10 <= 10
      expect(evaluateWindow({ previous: 0, current: 11 }, 10, at(30_000))).toMatchObject({
        allowed: false,
        retryAfterSeconds: 36,
      });
    });

    it('waits a few seconds into the current bucket when the load is mostly previous', () => {
      // limit 100, previous 150, current 10 at 15 s: 150 * 0.75 + 10 = 122.5 > 100.
      // Taken back and retried: current stays 10. Need 150 * (1 - f) + 10 <= 100,
      // i.e. 1 - f <= 0.6, f >= 0.4, 24 s into the bucket:
      //   s = 8 -> 23 s in: 150 * 37/60 + 10 = 92.5 + 10 = 102.5 > 100
      //   s = 9 -> 24 s in: 150 * 36/60 + 10 = 90 + 10 = 100 <= 100
      expect(evaluateWindow({ previous: 150, current: 10 }, 100, at(15_000))).toEqual({
        allowed: false,
        remaining: 0,
        resetSeconds: 45,
        retryAfterSeconds: 9,
      });
    });

    it('waits two whole buckets when even one faded request is too many', () => {
      // limit 1, previous 0, current 2 at 0 s. Taken back: current 1.
      // After one rollover: 1 * (1 - f) + 1 > 1 for every f < 1, so only at s = 120
      // (two rollovers, only the retry counts: 1 <= 1). 120 is also the cap.
      expect(evaluateWindow({ previous: 0, current: 2 }, 1, at(0)).retryAfterSeconds).toBe(120);
    });

    it('caps the wait at twice the window', () => {
      // limit 0 never allows anything: capped at 2 * 60 s.
      expect(evaluateWindow({ previous: 0, current: 1 }, 0, at(5_000)).retryAfterSeconds).toBe(120);
    });
  });
});
