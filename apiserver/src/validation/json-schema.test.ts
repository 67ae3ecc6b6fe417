import { describe, expect, it } from '@jest/globals';
import * as yup from 'yup';
import { descriptionToJsonSchema, toJsonSchema } from './json-schema.js';

const workerSchema = yup.object({
  name: yup
    .string()
    .required()
    .min(1)
    .max(56)
    .matches(/^[a-z][a-z0-9-]*$/),
  description: yup.string().nullable().optional().meta({ description: 'Free text.' }),
  tier: yup.mixed().oneOf(['small', 'large']).default('small'),
  replicas: yup.number().integer().min(1).max(10),
  tags: yup.array(yup.string().required()).min(1).max(5),
  limits: yup
    .object({
      cpu: yup.number().moreThan(0).lessThan(64).required(),
      memory: yup.string().label('Memory limit'),
    })
    .required(),
});

describe('toJsonSchema', () => {
  it('converts an object schema with its fields and required list', () => {
    expect(toJsonSchema(workerSchema)).toEqual({
      type: 'object',
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 56,
          pattern: '^[a-z][a-z0-9-]*$',
        },
        description: { type: ['string', 'null'], description: 'Free text.' },
        tier: { enum: ['small', 'large'], default: 'small' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        tags: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          minItems: 1,
          maxItems: 5,
        },
        limits: {
          type: 'object',
          properties: {
            cpu: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 64 },
            memory: { type: 'string', description: 'Memory limit' },
          },
          required: ['cpu'],
        },
      },
      required: ['name', 'limits'],
    });
  });

  it('never emits additionalProperties for a plain object', () => {
    const out = toJsonSchema(yup.object({ a: yup.string() }));
    expect(out).not.toHaveProperty('additionalProperties');
    expect(out).not.toHaveProperty('required');
  });

  it('emits additionalProperties: false for noUnknown() and exact()', () => {
    expect(toJsonSchema(yup.object({ a: yup.string() }).noUnknown())).toMatchObject({
      additionalProperties: false,
    });
    expect(toJsonSchema(yup.object({ a: yup.string() }).exact())).toMatchObject({
      additionalProperties: false,
    });
  });

  it('maps string formats and exact length', () => {
    expect(toJsonSchema(yup.string().email())).toEqual({ type: 'string', format: 'email' });
    expect(toJsonSchema(yup.string().uuid())).toEqual({ type: 'string', format: 'uuid' });
    expect(toJsonSchema(yup.string().url())).toEqual({ type: 'string', format: 'uri' });
    expect(toJsonSchema(yup.string().datetime())).toEqual({
      type: 'string',
      format: 'date-time',
    });
    expect(toJsonSchema(yup.string().length(8))).toEqual({
      type: 'string',
      minLength: 8,
      maxLength: 8,
    });
  });

  it('keeps a larger minLength over the one implied by required()', () => {
    expect(toJsonSchema(yup.string().required().min(3))).toEqual({
      type: 'string',
      minLength: 3,
    });
  });

  it('maps booleans, dates and plain numbers', () => {
    expect(toJsonSchema(yup.boolean().default(false))).toEqual({
      type: 'boolean',
      default: false,
    });
    expect(toJsonSchema(yup.date())).toEqual({ type: 'string', format: 'date-time' });
    expect(toJsonSchema(yup.number().positive())).toEqual({ type: 'number', exclusiveMinimum: 0 });
  });

  it('turns oneOf into enum, adding null only when nullable', () => {
    expect(toJsonSchema(yup.string().oneOf(['a', 'b']))).toEqual({
      type: 'string',
      enum: ['a', 'b'],
    });
    expect(toJsonSchema(yup.string().oneOf(['a', 'b', null as unknown as string]))).toEqual({
      type: 'string',
      enum: ['a', 'b'],
    });
    expect(toJsonSchema(yup.string().oneOf(['a', 'b']).nullable())).toEqual({
      type: ['string', 'null'],
      enum: ['a', 'b', null],
    });
    expect(toJsonSchema(yup.number().oneOf([1, 2, 3]))).toEqual({
      type: 'number',
      enum: [1, 2, 3],
    });
  });

  it('skips an enum that depends on a reference', () => {
    const schema = yup.object({
      password: yup.string(),
      confirm: yup.string().oneOf([yup.ref('password')]),
    });
    const out = toJsonSchema(schema) as { properties: Record<string, unknown> };
    expect(out.properties.confirm).toEqual({ type: 'string' });
  });

  it('turns notOneOf into not: { enum }', () => {
    expect(toJsonSchema(yup.string().notOneOf(['admin']))).toEqual({
      type: 'string',
      not: { enum: ['admin'] },
    });
  });

  it('uses meta description over the label, and meta example as examples', () => {
    const schema = yup.string().label('Name').meta({ description: 'The name.', example: 'alpha' });
    expect(toJsonSchema(schema)).toEqual({
      type: 'string',
      description: 'The name.',
      examples: ['alpha'],
    });
  });

  it('emits the value of a default thunk (describe() evaluates it), but not object defaults', () => {
    expect(toJsonSchema(yup.array(yup.string()).default(() => ['x']))).toMatchObject({
      default: ['x'],
    });
    expect(toJsonSchema(yup.object({ a: yup.string().default('x') }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string', default: 'x' } },
    });
  });

  it('serialises a Date default as an ISO string', () => {
    const at = new Date('2024-01-02T03:04:05.000Z');
    expect(toJsonSchema(yup.date().default(at))).toMatchObject({
      default: '2024-01-02T03:04:05.000Z',
    });
  });

  it('merges meta openapi last', () => {
    const schema = yup
      .string()
      .max(10)
      .meta({ description: 'x', openapi: { format: 'hostname', description: 'Host.' } });
    expect(toJsonSchema(schema)).toEqual({
      type: 'string',
      maxLength: 10,
      format: 'hostname',
      description: 'Host.',
    });
    expect(
      toJsonSchema(
        yup
          .string()
          .default('a')
          .meta({ openapi: { default: undefined } }),
      ),
    ).toEqual({ type: 'string' });
  });

  it('maps lazy, mixed and unknown schemas to {}', () => {
    const schema = yup.object({
      any: yup.mixed(),
      later: yup.lazy(() => yup.string()),
    });
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      properties: { any: {}, later: {} },
    });
    expect(toJsonSchema(yup.lazy(() => yup.string()))).toEqual({});
    expect(descriptionToJsonSchema({ type: 'ref', key: 'x' })).toEqual({});
  });

  it('resolves a lazy schema when describe options are given', () => {
    const schema = yup.lazy(() => yup.number().integer());
    expect(toJsonSchema(schema, { value: 3 })).toEqual({ type: 'integer' });
  });

  it('maps nullable objects, arrays and tuples', () => {
    expect(toJsonSchema(yup.object({}).nullable())).toEqual({
      type: ['object', 'null'],
      properties: {},
    });
    expect(toJsonSchema(yup.array(yup.number()).length(2))).toEqual({
      type: 'array',
      items: { type: 'number' },
      minItems: 2,
      maxItems: 2,
    });
    expect(toJsonSchema(yup.tuple([yup.string(), yup.number()]))).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
    });
  });
});
