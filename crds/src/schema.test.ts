import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import {
  Condition,
  CONDITION_REASON_PATTERN,
  CONDITION_TYPE_PATTERN,
  nullable,
  stringEnum,
} from './schema.js';

describe('nullable', () => {
  it('marks a schema nullable for Kubernetes', () => {
    expect(JSON.parse(JSON.stringify(nullable(Type.String())))).toEqual({
      type: 'string',
      nullable: true,
    });
  });

  it('refuses an enumeration, which kube-apiserver would check against null', () => {
    expect(() => nullable(stringEnum(['a', 'b'] as const, { description: 'a or b' }))).toThrow(
      /Type.Optional/,
    );
  });
});

describe('Condition', () => {
  const schema = JSON.parse(JSON.stringify(Condition)) as {
    required: string[];
    properties: Record<string, Record<string, unknown>>;
  };

  it('requires and limits what metav1.Condition does', () => {
    expect([...schema.required].sort()).toEqual(
      ['lastTransitionTime', 'message', 'reason', 'status', 'type'].sort(),
    );
    expect(schema.properties.type).toMatchObject({ maxLength: 316 });
    expect(schema.properties.reason).toMatchObject({ minLength: 1, maxLength: 1024 });
    expect(schema.properties.message).toMatchObject({ maxLength: 32768 });
    expect(schema.properties.observedGeneration).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: 0,
    });
    expect(schema.properties.status?.enum).toEqual(['True', 'False', 'Unknown']);
  });

  it('takes CamelCase reasons and types, optionally prefixed, and refuses the rest', () => {
    const reason = new RegExp(CONDITION_REASON_PATTERN);
    for (const ok of ['Ready', 'BuildFailed', 'A', 'usage_paused', 'Foo:Bar,Baz'])
      expect(ok).toMatch(reason);
    for (const bad of ['', '1Ready', 'Ready!', 'Ready-Now', 'Ready:'])
      expect(bad).not.toMatch(reason);
    const type = new RegExp(CONDITION_TYPE_PATTERN);
    for (const ok of ['Ready', 'WorkloadAvailable', 'svc.dev/Built']) expect(ok).toMatch(type);
    for (const bad of ['', 'Ready/', 'Svc.Dev/Ready', '-Ready']) expect(bad).not.toMatch(type);
  });
});
