import { describe, expect, it } from '@jest/globals';
import { MIN_SCHEDULE_INTERVAL_SECONDS, nextRun, validateSchedule } from './schedule.js';

function reasonOf(expr: string): string {
  const result = validateSchedule(expr);
  return result.ok ? 'ok' : result.reason;
}

function messageOf(expr: string): string {
  const result = validateSchedule(expr);
  if (result.ok) throw new Error(`expected "${expr}" to be rejected`);
  return result.message;
}

describe('validateSchedule', () => {
  it.each(['@hourly', '@daily', '@reboot', '@every 5m', '  @weekly  '])(
    'rejects the alias %p',
    (expr) => {
      expect(reasonOf(expr)).toBe('alias');
      expect(messageOf(expr)).toMatch(
        /aliases .* are not supported; write the schedule as 5 fields/,
      );
    },
  );

  it.each([
    ['', 0],
    ['* * * *', 4],
    ['0 */5 * * * *', 6],
    ['0 0 * * * * 2030', 7],
  ])('rejects %p as having %p fields', (expr, count) => {
    expect(reasonOf(expr)).toBe('field_count');
    expect(messageOf(expr)).toContain('exactly 5 fields');
    expect(messageOf(expr)).toContain(`got ${count}`);
  });

  it('says that a sixth field is read as seconds and is not supported', () => {
    expect(messageOf('0 */5 * * * *')).toContain('a seconds field is not supported');
  });

  it.each(['0 0 30 2 *', '0 0 31 4 *', '0 0 31 2,4,6,9,11 *', '0 0 30-31 2 *'])(
    'rejects the impossible date %p as never firing',
    (expr) => {
      expect(reasonOf(expr)).toBe('never_fires');
      expect(messageOf(expr)).toContain('never fires');
    },
  );

  it.each([
    // Feb 29 comes every 4 years.
    '0 0 29 2 *',
    // The 5th Monday of February comes only in a leap year whose Feb 1 is a Monday (every 28 years).
    '0 0 * 2 1#5',
    // With both day fields restricted, cron fires when either matches: every Monday of February.
    '0 0 30 2 1',
    '0 0 L 2 *',
  ])('accepts %p, which fires rarely but does fire', (expr) => {
    expect(validateSchedule(expr)).toEqual({ ok: true, normalized: expr });
  });

  it.each(['50-10/5 * * * *', '50-10 * * * *', '0,45-15/10 * * * *'])(
    'rejects the wrapping minute range in %p as unsupported minute syntax',
    (expr) => {
      expect(reasonOf(expr)).toBe('minute_syntax');
      expect(messageOf(expr)).toContain('Unsupported minute-field syntax');
    },
  );

  it.each(['H * * * *', '? * * * *'])(
    'rejects %p: the broader dialect is for fields 2-5 only',
    (expr) => {
      expect(reasonOf(expr)).toBe('minute_syntax');
    },
  );

  it.each([
    ['*/4 * * * *', 240],
    ['0-4 * * * *', 60],
    ['0,2 * * * *', 120],
    ['* * * * *', 60],
    ['*/1 9 * * 1-5', 60],
    // :59 then :00 of the next hour.
    ['0,59 * * * *', 60],
    // 08:57 then 09:01.
    ['1,57 8,9 * * *', 240],
    ['0,59 * * * 1', 60],
    // 23:59 then 00:00 of the next day.
    ['0,59 0,23 * * *', 60],
    // 23:58 on Jan 31 then 00:00 on Feb 1 (a month end).
    ['0,58 0,23 1,31 1,2 *', 120],
    // 23:59 on Dec 31 then 00:00 on Jan 1 (a year end, once a year).
    ['0,59 0,23 1,31 1,12 *', 60],
    // Feb 28 then Mar 1 in years that are not leap years.
    ['0,59 0,23 1,28 2,3 *', 60],
    // Feb 29 then Mar 1 in leap years only.
    ['0,59 0,23 1,29 2,3 *', 60],
    // Either day field may match: Tuesday 23:59, then Wednesday the 1st at 00:00.
    ['0,59 0,23 1 * 2', 60],
  ])('rejects %p as firing every %p seconds', (expr, seconds) => {
    expect(reasonOf(expr)).toBe('too_frequent');
    const message = messageOf(expr);
    expect(message).toContain(`fires as often as every ${seconds} seconds`);
    expect(message).toContain('more often than every 300 seconds (the minimum interval)');
    expect(message).toContain('always-on agent (keep_alive: true)');
  });

  it.each([
    '*/5 * * * *',
    '0,5,10,15,20,25,30,35,40,45,50,55 * * * *',
    '0 * * * *',
    // 08:57 then 09:02 is exactly 300 seconds.
    '2,57 8,9 * * *',
    // 23:55 then 00:00 is exactly 300 seconds.
    '0,55 0,23 * * *',
    // 23:59 and 00:00, but never on consecutive days (Mon, Wed, Fri).
    '0,59 0,23 * * 1,3,5',
    // Even days only: never two consecutive days, across month ends included.
    '0,59 0,23 2-30/2 * *',
    // Non-adjacent hours.
    '0,59 1,3 * * *',
  ])('accepts %p, whose firings are at least 300 seconds apart', (expr) => {
    expect(validateSchedule(expr)).toEqual({ ok: true, normalized: expr });
  });

  it.each([
    ['60 * * * *', 'got value 60 expected range 0-59'],
    ['0 24 * * *', 'got value 24 expected range 0-23'],
    ['0 0 * * 8', 'got value 8 expected range 0-7'],
    ['0 0 0 * *', 'got value 0 expected range 1-31'],
    ['0 0 * 13 *', 'got value 13 expected range 1-12'],
    ['0 22-2 * * *', 'Invalid range: 22-2'],
    ['garbage x y z w', 'Invalid schedule "garbage x y z w"'],
    ['*/0 * * * *', 'cannot repeat at every 0 time'],
  ])('rejects %p as invalid with the parser message', (expr, fragment) => {
    expect(reasonOf(expr)).toBe('invalid');
    expect(messageOf(expr)).toContain(fragment);
  });

  it('normalises whitespace between and around the fields', () => {
    expect(validateSchedule('  0   12\t* *  1-5 ')).toEqual({
      ok: true,
      normalized: '0 12 * * 1-5',
    });
  });

  it('accepts names and 7 for Sunday in fields 2-5', () => {
    expect(validateSchedule('30 6 * JAN,JUL MON-FRI')).toEqual({
      ok: true,
      normalized: '30 6 * JAN,JUL MON-FRI',
    });
    expect(validateSchedule('0 0 * * 7')).toEqual({ ok: true, normalized: '0 0 * * 7' });
  });

  it('publishes the contract minimum interval', () => {
    expect(MIN_SCHEDULE_INTERVAL_SECONDS).toBe(300);
  });
});

describe('nextRun', () => {
  it('returns the next firing strictly after the given time, in UTC', () => {
    expect(nextRun('*/5 * * * *', new Date('2026-03-01T10:02:30Z')).toISOString()).toBe(
      '2026-03-01T10:05:00.000Z',
    );
    expect(nextRun('*/5 * * * *', new Date('2026-03-01T10:05:00Z')).toISOString()).toBe(
      '2026-03-01T10:10:00.000Z',
    );
  });

  it('crosses month and year ends', () => {
    expect(nextRun('0 9 1 * *', new Date('2026-12-15T00:00:00Z')).toISOString()).toBe(
      '2027-01-01T09:00:00.000Z',
    );
  });

  it('finds Feb 29 in the next leap year', () => {
    expect(nextRun('0 0 29 2 *', new Date('2026-01-01T00:00:00Z')).toISOString()).toBe(
      '2028-02-29T00:00:00.000Z',
    );
  });

  it('reads the schedule as UTC whatever the process time zone', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(nextRun('30 23 * * *', new Date('2026-06-01T23:00:00Z')).toISOString()).toBe(
        '2026-06-01T23:30:00.000Z',
      );
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('throws the validation message for a rejected schedule', () => {
    expect(() => nextRun('@hourly', new Date())).toThrow(/aliases .* are not supported/);
    expect(() => nextRun('* * * * *', new Date())).toThrow(/more often than every 300 seconds/);
  });
});
