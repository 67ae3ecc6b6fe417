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

test('reads the spellings chrono relaxes to, as qdrant-edge does', () => {
  const utc = Date.UTC(2024, 0, 2, 3, 4, 5) * 1000;
  expect(parseDatetime('2024-1-2T3:4:5')).toBe(utc);
  expect(parseDatetime(' 2024-01-02T03:04:05Z')).toBe(utc);
  expect(parseDatetime('2024-01-02T03:04:05 UTC')).toBe(utc);
  expect(parseDatetime('2024-01-02t03:04:05utc')).toBe(utc);
  expect(parseDatetime('2024-01-02T05:04:05 +0200')).toBe(utc);
  expect(parseDatetime('2024-01-02T05:04:05+02')).toBe(utc);
  expect(parseDatetime('2024-01-02T03:04')).toBe(utc - 5_000_000);
  expect(parseDatetime('2024-01-02T03:04:05.1234567891Z')).toBe(utc + 123_456);
  // Years below 100 are years below 100, not 1900 and after.
  expect(new Date(parseDatetime('0099-01-01')! / 1000).getUTCFullYear()).toBe(99);
});

test.each([
  '2024-02-31',
  '2024-13-01',
  'yesterday',
  '2024-01-02T25:00:00Z',
  '2024-01-02T03:04Z',
  '2024-01-02Z',
  '2024-01-02T03:04:05 ',
  '2024-01-02T03:04:05.Z',
  '2024-01-02T03:04:05+2',
  '2024-01-02T03:04:05+24:00',
  '2024-01-02T03:04:05GMT',
  '20240102',
  '2024-01-02t03:04:05',
  '2024-01-02t03:04:05-02',
])('refuses %p', (text) => {
  expect(parseDatetime(text)).toBeUndefined();
});
