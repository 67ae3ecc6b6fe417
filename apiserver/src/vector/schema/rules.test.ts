import { describe, expect, test } from '@jest/globals';
import { parseAnalyze, parseConformance, parseIfMatch, parsePut } from './rules.js';

const schema = { type: 'object', properties: { title: { type: 'string' } } };

describe('parsePut', () => {
  test('accepts {schema, enforcement_mode, description?} and keeps the schema as JSON text', () => {
    const put = parsePut({ schema, enforcement_mode: 'warn', description: 'docs' });
    expect(put).toEqual({
      schema,
      schemaJson: JSON.stringify(schema),
      enforcementMode: 'warn',
      description: 'docs',
    });
  });

  test.each([[undefined], ['STRICT'], ['block'], [1]])(
    'refuses enforcement_mode %j with INVALID_ENFORCEMENT_MODE',
    (mode) => {
      expect(() => parsePut({ schema, enforcement_mode: mode })).toThrow(
        expect.objectContaining({ code: 'INVALID_ENFORCEMENT_MODE', status: 400 }),
      );
    },
  );

  test.each([[undefined], [null], [[]], ['{}'], [true]])(
    'refuses schema %j with VALIDATION_ERROR',
    (value) => {
      expect(() => parsePut({ schema: value, enforcement_mode: 'off' })).toThrow(
        expect.objectContaining({ code: 'VALIDATION_ERROR', fields: { field: 'schema' } }),
      );
    },
  );

  test('refuses a schema over 64 KB, an unknown key and an HTML description', () => {
    const big = { type: 'object', description: 'x'.repeat(70_000) };
    expect(() => parsePut({ schema: big, enforcement_mode: 'off' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        fields: { field: 'schema', max: 65536 },
      }),
    );
    expect(() => parsePut({ schema, enforcement_mode: 'off', mode: 'strict' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', fields: { field: 'mode' } }),
    );
    expect(() => parsePut({ schema, enforcement_mode: 'off', description: '<b>' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});

describe('parseAnalyze and parseConformance', () => {
  test('default to a 1000-point sample, sample mode and 10 examples', () => {
    expect(parseAnalyze({})).toEqual({ sampleSize: 1000 });
    expect(parseConformance({})).toEqual({ mode: 'sample', sampleSize: 1000, maxExamples: 10 });
  });

  test.each([[99], [10_001], [150.5], ['500'], [null]])(
    'refuses sample_size %j with INVALID_SAMPLE_SIZE',
    (size) => {
      expect(() => parseAnalyze({ sample_size: size })).toThrow(
        expect.objectContaining({ code: 'INVALID_SAMPLE_SIZE', status: 400 }),
      );
      expect(() => parseConformance({ sample_size: size })).toThrow(
        expect.objectContaining({ code: 'INVALID_SAMPLE_SIZE' }),
      );
    },
  );

  test('accepts the bounds of sample_size and max_examples', () => {
    expect(parseConformance({ mode: 'full', sample_size: 100, max_examples: 0 })).toEqual({
      mode: 'full',
      sampleSize: 100,
      maxExamples: 0,
    });
    expect(parseConformance({ sample_size: 10_000, max_examples: 100 }).maxExamples).toBe(100);
  });

  test('refuses another mode with INVALID_SCAN_MODE and max_examples outside 0..100', () => {
    expect(() => parseConformance({ mode: 'quick' })).toThrow(
      expect.objectContaining({ code: 'INVALID_SCAN_MODE' }),
    );
    for (const max of [-1, 101, 2.5, '3']) {
      expect(() => parseConformance({ max_examples: max })).toThrow(
        expect.objectContaining({ code: 'INVALID_MAX_EXAMPLES' }),
      );
    }
  });
});

describe('parseIfMatch', () => {
  test('is null without the header', () => {
    expect(parseIfMatch(undefined)).toBeNull();
    expect(parseIfMatch('')).toBeNull();
  });

  test('compares strong tags exactly, reads a bare tag as quoted, and never matches a weak one', () => {
    const list = parseIfMatch('"1-abc", "2-abc"')!;
    expect(list.matches('"2-abc"')).toBe(true);
    expect(list.matches('"3-abc"')).toBe(false);
    expect(list.matches(null)).toBe(false);
    expect(parseIfMatch('2-abc')!.matches('"2-abc"')).toBe(true);
    expect(parseIfMatch('W/"2-abc"')!.matches('"2-abc"')).toBe(false);
  });

  test('* matches any schema, but not the absence of one', () => {
    expect(parseIfMatch('*')!.matches('"1-x"')).toBe(true);
    expect(parseIfMatch('*')!.matches(null)).toBe(false);
  });
});
