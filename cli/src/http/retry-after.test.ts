import { describe, expect, it } from '@jest/globals';
import { retryDelayMs } from './retry-after.js';

describe('retryDelayMs', () => {
  it('reads Retry-After as seconds', () => {
    expect(retryDelayMs('3', {}, 0)).toBe(3000);
    expect(retryDelayMs('0', {}, 2)).toBe(0);
  });

  it('reads Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs('Thu, 01 Jan 2026 00:00:05 GMT', {}, 0, now)).toBe(5000);
  });

  it("falls back to the envelope's retry_after_seconds, then to doubling from 1 s", () => {
    expect(retryDelayMs(null, { retry_after_seconds: 7 }, 0)).toBe(7000);
    expect(retryDelayMs(null, {}, 0)).toBe(1000);
    expect(retryDelayMs('soon', {}, 2)).toBe(4000);
  });
});
