/**
 * A yup string that holds a real ISO 8601 date-time. yup's own `datetime()`
 * checks the spelling only: it passes an empty string (`?since=`) and a month
 * 13 or an hour 25, which `new Date()` then makes an Invalid Date (a filter
 * that silently matches everything, or a 500 from `toISOString()`).
 */
import * as yup from 'yup';

/** Whether `text` is a date-time a `Date` can hold (NaN for '' and for impossible fields). */
export function isRealDateTime(text: string): boolean {
  return !Number.isNaN(Date.parse(text));
}

/** An ISO date-time string (offset allowed), documented with format date-time. */
export function isoDateTime() {
  return yup
    .string()
    .datetime({ allowOffset: true })
    .test('date-time', '${path} must be a valid ISO date-time', (value) =>
      value === undefined || value === null ? true : isRealDateTime(value),
    )
    .meta({ openapi: { format: 'date-time' } });
}
