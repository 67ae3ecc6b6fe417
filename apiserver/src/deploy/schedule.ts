/**
 * The `schedule` key: a 5-field cron expression in UTC, checked at deploy time
 * against the contract's rejection table (aliases, field count, impossible
 * dates, unsupported minute syntax, the 300-second minimum interval).
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';

/** Why a schedule was rejected; one value per row of the contract's rejection table, plus `invalid`. */
export type ScheduleRejection =
  'alias' | 'field_count' | 'never_fires' | 'minute_syntax' | 'too_frequent' | 'invalid';

/** The outcome of {@link validateSchedule}. */
export type ScheduleValidation =
  { ok: true; normalized: string } | { ok: false; reason: ScheduleRejection; message: string };

/** The shortest time allowed between two firings of a schedule. */
export const MIN_SCHEDULE_INTERVAL_SECONDS = 300;

const MIN_INTERVAL_MINUTES = MIN_SCHEDULE_INTERVAL_SECONDS / 60;
const DAY_MS = 86_400_000;

// Which days a cron expression selects repeats every 28 years between 1901 and
// 2099 (weekdays and leap years realign), so scanning one whole cycle sees every
// combination of day of month, month and day of week that can ever occur, and
// 2000 (a leap year) to 2028 keeps the scan independent of today's date.
const SCAN_FROM = Date.UTC(2000, 0, 1);
const SCAN_TO = Date.UTC(2028, 0, 1);

// cron-parser rejects a day of month that no listed month has (`0 0 30 2 *`)
// while parsing, with this message; anything else it throws is plain invalid.
const IMPOSSIBLE_DAY_OF_MONTH = 'Invalid explicit day of month definition';

// The contract gives the minute field the plain syntax only (numbers, `*`,
// ranges, steps, lists); the broader dialect (`H`, `?`, names) is for fields 2-5.
const PLAIN_MINUTE_FIELD = /^[0-9*,/-]+$/;

/**
 * Checks a schedule against the contract and returns it normalised (the five
 * fields joined by single spaces), or the rejection reason and a message for
 * the deploy's error. Validation does not depend on today's date.
 */
export function validateSchedule(expr: string): ScheduleValidation {
  const trimmed = expr.trim();
  if (trimmed.startsWith('@')) {
    return reject(
      'alias',
      `Schedule aliases such as ${trimmed.split(/\s+/)[0]} are not supported; ` +
        'write the schedule as 5 fields: minute hour day-of-month month day-of-week.',
    );
  }

  const fields = trimmed === '' ? [] : trimmed.split(/\s+/);
  if (fields.length !== 5) {
    const seconds = fields.length === 6 ? ' (a seconds field is not supported)' : '';
    return reject(
      'field_count',
      `A schedule needs exactly 5 fields (minute hour day-of-month month day-of-week); ` +
        `got ${fields.length}${seconds}.`,
    );
  }
  const normalized = fields.join(' ');
  const minuteField = fields[0] as string;

  // A wrapping range (`50-10`, with or without a step) reads as "from :50 past
  // the hour round to :10", which cron does not define; it is reported as
  // unsupported syntax rather than cron-parser's generic range error.
  const wrapping = wrappingRange(minuteField);
  if (wrapping !== null) {
    return reject(
      'minute_syntax',
      `Unsupported minute-field syntax: the range ${wrapping} wraps past the hour. ` +
        'Write it as two ranges, for example 50-59,0-10.',
    );
  }

  let interval: CronExpression;
  try {
    interval = parse(normalized);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (message === IMPOSSIBLE_DAY_OF_MONTH) return neverFires(normalized);
    return reject('invalid', `Invalid schedule "${normalized}": ${message}.`);
  }

  if (!PLAIN_MINUTE_FIELD.test(minuteField)) {
    return reject(
      'minute_syntax',
      `Unsupported minute-field syntax "${minuteField}": the minute field takes numbers 0-59, ` +
        '*, ranges, steps and lists only.',
    );
  }

  if (!scanDays(interval, 'any')) return neverFires(normalized);

  const gapMinutes = gapBelowMinimum(interval);
  if (gapMinutes !== null) {
    return reject(
      'too_frequent',
      `The schedule "${normalized}" fires as often as every ${gapMinutes * 60} seconds, ` +
        `more often than every ${MIN_SCHEDULE_INTERVAL_SECONDS} seconds (the minimum interval). ` +
        'For work that needs to run that often, use an always-on agent (keep_alive: true) instead.',
    );
  }
  return { ok: true, normalized };
}

/**
 * The first firing of `expr` strictly after `from`, in UTC. Throws when `expr`
 * is not a schedule {@link validateSchedule} accepts.
 */
export function nextRun(expr: string, from: Date): Date {
  const result = validateSchedule(expr);
  if (!result.ok) throw new Error(result.message);
  return parse(result.normalized, from).next().toDate();
}

function reject(reason: ScheduleRejection, message: string): ScheduleValidation {
  return { ok: false, reason, message };
}

function neverFires(normalized: string): ScheduleValidation {
  return reject(
    'never_fires',
    `The schedule "${normalized}" never fires: no date matches its day-of-month, month and ` +
      'day-of-week fields.',
  );
}

function parse(normalized: string, currentDate?: Date): CronExpression {
  // `H` (in fields 2-5) picks a pseudo-random value; seeding it with the
  // expression makes every parse of the same schedule agree.
  return CronExpressionParser.parse(normalized, {
    tz: 'UTC',
    hashSeed: normalized,
    ...(currentDate ? { currentDate } : {}),
  });
}

/** The first `a-b` or `a-b/n` term of a minute field with a > b (both 0-59), or null. */
function wrappingRange(minuteField: string): string | null {
  for (const term of minuteField.split(',')) {
    const range = /^(\d+)-(\d+)(?:\/\d+)?$/.exec(term);
    if (!range) continue;
    const start = Number(range[1]);
    const end = Number(range[2]);
    if (start > end && start <= 59 && end <= 59) return term;
  }
  return null;
}

/** Sorted numeric values of a parsed minute or hour field. */
function numbers(values: ReadonlyArray<number | string>): number[] {
  return values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
}

/**
 * Scans one 28-year cycle day by day for a day the schedule fires on and, when
 * asked, for two consecutive firing days (which matter to a schedule firing
 * late at 23:xx and early at 00:xx). Stops as soon as it knows the answer.
 */
function scanDays(interval: CronExpression, want: 'any' | 'consecutive'): boolean {
  // Every firing day fires at every listed hour and minute, so a day fires
  // exactly when it matches at the first listed hour and minute.
  const hour = numbers(interval.fields.hour.values)[0] ?? 0;
  const minute = numbers(interval.fields.minute.values)[0] ?? 0;
  let previousFired = false;
  for (let day = SCAN_FROM; day < SCAN_TO; day += DAY_MS) {
    const fired = interval.includesDate(new Date(day + (hour * 60 + minute) * 60_000));
    if (fired && (want === 'any' || previousFired)) return true;
    previousFired = fired;
  }
  return false;
}

/**
 * The shortest gap, in minutes, between two consecutive firings when it is
 * below the minimum interval; null when every gap is at least the minimum.
 *
 * A cron schedule fires at every listed minute of every listed hour of every
 * firing day, so gaps under an hour arise only between listed minutes of one
 * hour, or across an hour boundary (last minute of an hour to the first minute
 * of the next), which needs two adjacent listed hours or 23:xx and 00:xx on
 * consecutive firing days (month and year ends included).
 */
function gapBelowMinimum(interval: CronExpression): number | null {
  const minutes = numbers(interval.fields.minute.values);
  const hours = numbers(interval.fields.hour.values);
  const first = minutes[0];
  const last = minutes[minutes.length - 1];
  if (first === undefined || last === undefined) return null;

  let shortest = Infinity;
  for (let i = 1; i < minutes.length; i++) {
    shortest = Math.min(shortest, (minutes[i] as number) - (minutes[i - 1] as number));
  }

  // Scanning for consecutive firing days is the costly part; only done when it can matter.
  const acrossHour = 60 - last + first;
  if (acrossHour < Math.min(shortest, MIN_INTERVAL_MINUTES)) {
    const adjacentHours = hours.some((h, i) => i > 0 && h - (hours[i - 1] as number) === 1);
    if (
      adjacentHours ||
      (hours.includes(23) && hours.includes(0) && scanDays(interval, 'consecutive'))
    ) {
      shortest = acrossHour;
    }
  }
  return shortest < MIN_INTERVAL_MINUTES ? shortest : null;
}
