import { describe, expect, it } from '@jest/globals';
import { Type } from '@sinclair/typebox';
import { nullable, stringEnum } from './schema.js';

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
