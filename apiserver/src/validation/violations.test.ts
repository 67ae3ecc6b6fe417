import { describe, expect, it } from '@jest/globals';
import * as yup from 'yup';
import { toViolations, validationErrorDetail, type Violation } from './violations.js';

const schema = yup.object({
  name: yup
    .string()
    .required()
    .min(3)
    .max(8)
    .matches(/^[a-z]+$/)
    .test('reserved-name', 'name is reserved', (v) => v !== 'admin'),
  code: yup.string().length(4),
  replicas: yup.number().integer().min(1).max(10),
  tier: yup.string().oneOf(['small', 'large']),
  owner: yup.string().required(),
  contact: yup.string().defined(),
  allowed_workers: yup.array(
    yup.object({ name: yup.string().required(), weight: yup.number().moreThan(0) }),
  ),
  tags: yup.array(yup.string()).max(2),
  settings: yup
    .object({ 'weird.key': yup.string(), nested: yup.object({ depth: yup.number() }) })
    .noUnknown(),
});

async function errorOf(validation: Promise<unknown>): Promise<yup.ValidationError> {
  const err = await validation.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof yup.ValidationError) return err;
  throw new Error(`expected a ValidationError, got ${String(err)}`);
}

async function violationsOf(value: unknown): Promise<Violation[]> {
  const err = await errorOf(schema.validate(value, { abortEarly: false, strict: true }));
  return toViolations(err, 'body');
}

const valid = { name: 'worker', owner: 'me', contact: 'x' };

describe('toViolations', () => {
  it('lists every failure with loc and type', async () => {
    const violations = await violationsOf({
      name: 'A',
      replicas: 2.5,
      tier: 'medium',
      contact: null,
      allowed_workers: [{ name: 'a' }, { name: 'b', weight: 0 }, { weight: 1 }],
      tags: ['a', 'b', 'c'],
    });
    const byLoc = violations.map(({ loc, type }) => ({ loc, type }));
    expect(byLoc).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'name'], type: 'string_too_short' },
        { loc: ['body', 'name'], type: 'string_pattern_mismatch' },
        { loc: ['body', 'replicas'], type: 'int_type' },
        { loc: ['body', 'tier'], type: 'enum' },
        { loc: ['body', 'owner'], type: 'missing' },
        { loc: ['body', 'contact'], type: 'null_not_allowed' },
        { loc: ['body', 'allowed_workers', 1, 'weight'], type: 'less_than_minimum' },
        { loc: ['body', 'allowed_workers', 2, 'name'], type: 'missing' },
        { loc: ['body', 'tags'], type: 'array_too_long' },
      ]),
    );
    expect(byLoc).toHaveLength(9);
    const owner = violations.find((v) => v.loc[1] === 'owner');
    expect(owner?.msg).toBe('owner is a required field');
  });

  it('maps the remaining string and number checks', async () => {
    const long = await violationsOf({ ...valid, name: 'abcdefghij', code: 'abc', replicas: 11 });
    expect(long.map(({ loc, type }) => ({ loc, type }))).toEqual([
      { loc: ['body', 'name'], type: 'string_too_long' },
      { loc: ['body', 'code'], type: 'string_length' },
      { loc: ['body', 'replicas'], type: 'greater_than_maximum' },
    ]);
    const low = await violationsOf({ ...valid, replicas: 0 });
    expect(low.map((v) => v.type)).toEqual(['less_than_minimum']);
  });

  it('names a custom test after itself in snake_case', async () => {
    const violations = await violationsOf({ ...valid, name: 'admin' });
    expect(violations).toEqual([
      { loc: ['body', 'name'], msg: 'name is reserved', type: 'reserved_name' },
    ]);
  });

  it('reports a wrong type, an empty required string and an unknown key', async () => {
    const violations = await violationsOf({
      ...valid,
      owner: '',
      replicas: '3',
      settings: { 'weird.key': 5, nested: { depth: 'deep' }, extra: true },
    });
    expect(violations.map(({ loc, type }) => ({ loc, type }))).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'owner'], type: 'missing' },
        { loc: ['body', 'replicas'], type: 'type_error' },
        { loc: ['body', 'settings', 'weird.key'], type: 'type_error' },
        { loc: ['body', 'settings', 'nested', 'depth'], type: 'type_error' },
        { loc: ['body', 'settings'], type: 'extra_forbidden' },
      ]),
    );
    expect(violations).toHaveLength(5);
  });

  it('gives a root-level error the bare location', async () => {
    const err = await errorOf(schema.validate('nope', { strict: true }));
    expect(toViolations(err, 'query')).toEqual([
      { loc: ['query'], msg: expect.any(String), type: 'type_error' },
    ]);
  });

  it('uses the error itself when inner is empty (abortEarly)', async () => {
    const items = yup.object({ items: yup.array(yup.number().max(1)) });
    const err = await errorOf(items.validate({ items: [0, 5] }, { strict: true }));
    expect(err.inner).toHaveLength(0);
    expect(toViolations(err, 'path')).toEqual([
      {
        loc: ['path', 'items', 1],
        msg: 'items[1] must be less than or equal to 1',
        type: 'greater_than_maximum',
      },
    ]);
  });

  it('handles a hand-made error without path or type', () => {
    expect(toViolations(new yup.ValidationError('bad'), 'body')).toEqual([
      { loc: ['body'], msg: 'bad', type: 'value_error' },
    ]);
  });
});

describe('validationErrorDetail', () => {
  it('wraps the violations in the error detail', () => {
    const err = new yup.ValidationError('x is a required field', undefined, 'x', 'required');
    expect(validationErrorDetail(err, 'query')).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'Request validation failed',
      violations: [{ loc: ['query', 'x'], msg: 'x is a required field', type: 'missing' }],
    });
  });
});
