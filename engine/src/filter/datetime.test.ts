import { expect, test } from '@jest/globals';
import { parseDatetime } from './datetime.js';

test('reads RFC 3339, zoneless (UTC), space-separated and date-only spellings', () => {
  const utc = Date.UTC(2024, 0, 2, 3, 4, 5) * 1000;
  expect(parseDatetime('2024-01-02T03:04:05Z')).toBe(utc);
  expect(parseDatetime('2024-01-02T03:04:05')).toBe(utc);
  expect(parseDatetime('2024-01-02 03:04:05')).toBe(utc);
  expect(parseDatetime('2024-01-02T05:04:05+02:00')).toBe(utc);
  expect(parseDatetime('2024-01-02T03:04:05.250Z')).toBe(utc + 250_000);
  expect(parseDatetime('2024-01-02')).toBe(Date.UTC(2024, 0, 2) * 1000);
});

test.each(['2024-02-31', '2024-13-01', 'yesterday', '2024-01-02T25:00:00Z'])(
  'refuses %p',
  (text) => {
    expect(parseDatetime(text)).toBeUndefined();
  },
);
