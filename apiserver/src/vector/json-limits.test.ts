import { describe, expect, test } from '@jest/globals';
import {
  checkFiniteNumbers,
  checkJsonDepth,
  mayHoldNonFinite,
  MAX_JSON_DEPTH,
} from './json-limits.js';

const bytes = (text: string) => Buffer.from(text);
const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('checkJsonDepth', () => {
  test('counts arrays and objects, dense vectors included, up to the limit', () => {
    expect(() => checkJsonDepth(bytes(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).not.toThrow();
    expect(() => checkJsonDepth(bytes(nested(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH)).toThrow();
    expect(() => checkJsonDepth(bytes('{"a":{"b":[1,2,3]}}'), 2)).toThrow();
    expect(() => checkJsonDepth(bytes('{"a":{"b":[1,2,3]}}'), 3)).not.toThrow();
  });

  test('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `"\\${'['.repeat(500)}` });
    expect(() => checkJsonDepth(bytes(text), 3)).not.toThrow();
  });

  test('refuses with 400 MALFORMED_JSON carrying max', () => {
    expect(() => checkJsonDepth(bytes(nested(200)))).toThrow(
      expect.objectContaining({ status: 400, code: 'MALFORMED_JSON', fields: { max: 127 } }),
    );
  });
});

describe('mayHoldNonFinite and checkFiniteNumbers', () => {
  test.each(['[1e400]', '[1E+309]', '[-5e0999]', `[${'9'.repeat(309)}]`, '{"a":{"b":[0,2e308]}}'])(
    'refuse %s',
    (text) => {
      expect(mayHoldNonFinite(bytes(text))).toBe(true);
      expect(() => checkFiniteNumbers(bytes(text))).toThrow(
        expect.objectContaining({ code: 'VALIDATION_ERROR' }),
      );
    },
  );

  test.each([
    '[1e-400, 1e-05, 3.4e38]',
    '{"e":"the eel"}',
    `[${'9'.repeat(300)}]`,
    '{"s":"1e400"}',
    '[1.7e308]',
  ])('accept %s', (text) => expect(() => checkFiniteNumbers(bytes(text))).not.toThrow());

  test('names the field holding the number', () => {
    expect(() => checkFiniteNumbers(bytes('{"points":[{"vector":[1,1e400]}]}'))).toThrow(
      expect.objectContaining({ fields: { field: 'points[0].vector[1]' } }),
    );
  });

  test('finds nothing to parse in a plain vector with negative exponents', () => {
    const vector = JSON.stringify(Array.from({ length: 2000 }, (_, i) => Math.sin(i) * 1e-7));
    expect(mayHoldNonFinite(bytes(vector))).toBe(false);
  });
});
