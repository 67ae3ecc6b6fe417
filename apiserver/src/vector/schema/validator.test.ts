import { describe, expect, test } from '@jest/globals';
import { compilePayloadSchema, fieldFamily, ValidatorCache } from './validator.js';

const product = {
  type: 'object',
  properties: {
    title: { type: 'string', maxLength: 200 },
    price: { type: 'number', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object', properties: { 'a.b': { type: 'integer' } } },
  },
  required: ['title'],
};

describe('compilePayloadSchema', () => {
  const validate = compilePayloadSchema(product);

  test('accepts a conforming payload', () => {
    expect(validate({ title: 'x', price: 2, tags: ['a'] })).toBeNull();
  });

  test('names the field of the first violation', () => {
    expect(validate({ price: 1 })).toEqual({
      field: 'title',
      message: "title must have required property 'title'",
    });
    expect(validate({ title: 'x', price: 'free' })).toEqual({
      field: 'price',
      message: 'price must be number',
    });
    expect(validate({ title: 'x', tags: ['a', 2] })!.field).toBe('tags[1]');
    expect(validate({ title: 'x', meta: { 'a.b': 1.5 } })!.field).toBe('meta.a.b');
  });

  test('names an extra property refused by additionalProperties', () => {
    const closed = compilePayloadSchema({ ...product, additionalProperties: false });
    expect(closed({ title: 'x', colour: 'red' })!.field).toBe('colour');
  });

  test('knows formats and draft-07 by $schema', () => {
    const dated = compilePayloadSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      properties: { at: { type: 'string', format: 'date-time' } },
    });
    expect(dated({ at: '2024-01-02T03:04:05Z' })).toBeNull();
    expect(dated({ at: 'yesterday' })!.field).toBe('at');
  });

  test('keeps one schema’s $id out of every other schema', () => {
    const a = compilePayloadSchema({ $id: 'https://example.com/s', type: 'object' });
    const b = compilePayloadSchema({ $id: 'https://example.com/s', required: ['x'] });
    expect(a({})).toBeNull();
    expect(b({})!.field).toBe('x');
  });

  test.each([
    ['an invalid keyword value', { type: 'objekt' }],
    ['an unknown keyword', { type: 'object', requird: ['x'] }],
    ['an unknown format', { properties: { a: { type: 'string', format: 'colour' } } }],
    ['a remote reference', { properties: { a: { $ref: 'https://example.com/s.json' } } }],
    ['another draft', { $schema: 'http://json-schema.org/draft-04/schema#' }],
    ['a schema of something other than an object', { type: 'string' }],
    ['a catastrophic pattern', { properties: { a: { type: 'string', pattern: '^(a+)+$' } } }],
    ['a catastrophic property pattern', { patternProperties: { '^(a|a)*$': {} } }],
  ])('refuses %s with VALIDATION_ERROR', (_, schema) => {
    expect(() => compilePayloadSchema(schema)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', status: 400 }),
    );
  });

  test('accepts a bounded pattern, and a pattern-like key inside data', () => {
    const v = compilePayloadSchema({
      properties: { sku: { type: 'string', pattern: '^[A-Z]{3}-\\d{1,6}$' } },
      default: { pattern: '(a+)+' },
    });
    expect(v({ sku: 'ABC-12' })).toBeNull();
    expect(v({ sku: 'abc' })!.field).toBe('sku');
  });
});

describe('fieldFamily', () => {
  test('folds array indices', () => {
    expect(fieldFamily('tags[3]')).toBe('tags[]');
    expect(fieldFamily('a[1].b[22]')).toBe('a[].b[]');
  });
});

describe('ValidatorCache', () => {
  test('compiles once per etag', () => {
    const cache = new ValidatorCache(2);
    const first = cache.get('c', '"1"', product);
    expect(cache.get('c', '"1"', product)).toBe(first);
    expect(cache.get('c', '"2"', product)).not.toBe(first);
  });
});
