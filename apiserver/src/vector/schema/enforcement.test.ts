import { describe, expect, test } from '@jest/globals';
import { WriteCheck } from './enforcement.js';
import { predictPayload } from './payload-writes.js';
import { compilePayloadSchema } from './validator.js';

const validate = compilePayloadSchema({
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
});

describe('WriteCheck', () => {
  test('in strict mode refuses at settle what was checked since the last settle', () => {
    const check = new WriteCheck('strict', validate, 3);
    check.point(1, { n: 1 });
    check.settle();
    check.point(2, { n: 'two' });
    check.point(3, {});
    let refusal: unknown;
    try {
      check.settle();
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toEqual(
      expect.objectContaining({
        code: 'SCHEMA_VALIDATION_FAILED',
        status: 400,
        fields: {
          details: {
            schema_version: 3,
            violations: [
              { point_id: 2, field: 'n', message: 'n must be integer' },
              { point_id: 3, field: 'n', message: "n must have required property 'n'" },
            ],
            points_violating: 2,
            points_written: 1,
          },
        },
      }),
    );
  });

  test('in warn mode never refuses and counts the points that broke the schema', () => {
    const check = new WriteCheck('warn', validate, 1);
    check.point(1, {});
    check.point(2, { n: 2 });
    expect(() => check.settle()).not.toThrow();
    const ctx = {
      body: '{"result":{"status":"completed"},"status":"ok"}',
      headers: {} as Record<string, string>,
      set(name: string, value: string) {
        this.headers[name] = value;
      },
    };
    check.surfaceWarnings(ctx as never);
    expect(ctx.headers['X-Schema-Warnings']).toBe('1');
    expect(ctx.body).toEqual({
      result: { status: 'completed' },
      status: 'ok',
      warnings: [{ point_id: 1, field: 'n', message: "n must have required property 'n'" }],
    });
  });

  test('checks nothing without a schema', () => {
    const check = WriteCheck.none();
    check.point(1, { anything: true });
    expect(check.active).toBe(false);
    expect(() => check.settle()).not.toThrow();
  });
});

describe('predictPayload', () => {
  test('merges at the top level, removing keys set to null, as the engine does', () => {
    expect(predictPayload({ a: 1, b: 2 }, { b: null, c: 3 }, undefined)).toEqual({ a: 1, c: 3 });
  });

  test('merges into a nested key', () => {
    expect(predictPayload({ a: { x: 1 } }, { y: 2 }, 'a')).toEqual({ a: { x: 1, y: 2 } });
    expect(predictPayload({}, { y: 2 }, 'a.b')).toEqual({ a: { b: { y: 2 } } });
  });
});
