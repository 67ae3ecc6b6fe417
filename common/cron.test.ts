import { describe, expect, it } from '@jest/globals';
import { nextRun } from './cron.js';

describe('nextRun', () => {
  it('gives the next occurrence after the given time, in UTC', () => {
    expect(nextRun('*/10 * * * *', new Date('2026-01-01T10:03:00Z')).toISOString()).toBe(
      '2026-01-01T10:10:00.000Z',
    );
    expect(nextRun('0 9 * * 1', new Date('2026-01-01T00:00:00Z')).toISOString()).toBe(
      '2026-01-05T09:00:00.000Z',
    );
  });

  it('is strictly after the given time', () => {
    expect(nextRun('0 * * * *', new Date('2026-01-01T10:00:00Z')).toISOString()).toBe(
      '2026-01-01T11:00:00.000Z',
    );
  });
});
