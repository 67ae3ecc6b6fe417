import { describe, expect, test } from '@jest/globals';
import { expectedList, expectFields, readVariant, refuseFields } from './strict.js';

describe('strict request reading', () => {
  test('words what was expected as serde does', () => {
    expect(expectedList(['a'])).toBe('expected `a`');
    expect(expectedList(['a', 'b'])).toBe('expected `a` or `b`');
    expect(expectedList(['a', 'b', 'c'])).toBe('expected one of `a`, `b`, `c`');
  });

  test('an unknown field is a 400 naming it and the fields there are', () => {
    expect(() => expectFields({ limit: 1, lmit: 2 }, ['limit', 'offset'])).toThrow(
      'Format error in JSON body: unknown field `lmit`, expected `limit` or `offset`',
    );
    expect(() => expectFields({ limit: 1 }, ['limit'])).not.toThrow();
  });

  test('a recognised field the engine lacks is a 400 saying it is not supported', () => {
    expect(() => refuseFields({ shard_key: 'a' }, ['shard_key'])).toThrow(
      'Bad request: `shard_key` is not supported by this engine',
    );
    expect(() => refuseFields({ shard_key: null }, ['shard_key'])).not.toThrow();
  });

  test('an unknown enum value is serde unknown variant', () => {
    expect(readVariant({ d: 'desc' }, 'd', ['asc', 'desc'], 'asc')).toBe('desc');
    expect(readVariant({}, 'd', ['asc', 'desc'], 'asc')).toBe('asc');
    expect(() => readVariant({ d: 'up' }, 'd', ['asc', 'desc'], 'asc')).toThrow(
      'unknown variant `up`, expected `asc` or `desc`',
    );
    try {
      readVariant({ d: 'up' }, 'd', ['asc', 'desc'], 'asc');
    } catch (error) {
      expect((error as { status: number }).status).toBe(400);
    }
  });
});
