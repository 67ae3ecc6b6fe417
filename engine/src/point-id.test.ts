import { describe, expect, test } from '@jest/globals';
import { EngineError } from './errors.js';
import { comparePointIds, parsePointId } from './point-id.js';

describe('parsePointId', () => {
  test('keeps unsigned integers', () => {
    expect(parsePointId(0)).toBe(0);
    expect(parsePointId(42)).toBe(42);
  });

  test('normalises every UUID spelling to lowercase hyphenated', () => {
    const canonical = '550e8400-e29b-41d4-a716-446655440000';
    for (const form of [
      '550E8400-E29B-41D4-A716-446655440000',
      '550e8400e29b41d4a716446655440000',
      '{550e8400-e29b-41d4-a716-446655440000}',
      'urn:uuid:550e8400-e29b-41d4-a716-446655440000',
    ]) {
      expect(parsePointId(form)).toBe(canonical);
    }
  });

  test.each([[-1], [1.5], ['42'], ['not-a-uuid'], [null], [2 ** 60]])(
    'refuses %p with a 400',
    (value) => {
      expect(() => parsePointId(value)).toThrow(EngineError);
      try {
        parsePointId(value);
      } catch (error) {
        expect((error as EngineError).status).toBe(400);
      }
    },
  );
});

test('orders integers before UUIDs, and UUIDs as numbers', () => {
  const ids = [
    'ffffffff-0000-0000-0000-000000000000',
    7,
    '00000000-0000-0000-0000-000000000001',
    3,
  ];
  expect(ids.sort(comparePointIds)).toEqual([
    3,
    7,
    '00000000-0000-0000-0000-000000000001',
    'ffffffff-0000-0000-0000-000000000000',
  ]);
});
