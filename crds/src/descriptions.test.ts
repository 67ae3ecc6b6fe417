/**
 * `kubectl explain` reads the CRDs' schemas: every field of every served
 * version says what it is. Walks each version's openAPIV3Schema through
 * `properties`, `items` and `additionalProperties`; every property needs a
 * non-empty description, and so does an array item or map value that is an
 * object (its own fields are walked too). Scalar items (a list of region
 * names) are described by their list.
 */
import { describe, expect, it } from '@jest/globals';
import { allCrds } from './definitions.js';

type Node = Record<string, unknown>;

const isObject = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The paths under `node` (at `path`) that lack a description. */
function undescribed(node: Node, path: string, mustDescribe = true, atRoot = true): string[] {
  const missing: string[] = [];
  const description = node.description;
  if (mustDescribe && !(typeof description === 'string' && description.trim() !== '')) {
    missing.push(path);
  }
  if (isObject(node.properties)) {
    for (const [key, child] of Object.entries(node.properties)) {
      // A CRD's root metadata may say nothing but its type (the API server refuses more).
      if (key === 'metadata' && atRoot) continue;
      if (isObject(child)) missing.push(...undescribed(child, `${path}.${key}`, true, false));
      else missing.push(`${path}.${key}`);
    }
  }
  for (const [key, suffix] of [
    ['items', '[]'],
    ['additionalProperties', '{}'],
  ] as const) {
    const child = node[key];
    if (isObject(child))
      missing.push(...undescribed(child, `${path}${suffix}`, child.type === 'object', false));
  }
  return missing;
}

describe('CRD field descriptions', () => {
  const versions = allCrds.flatMap((crd) =>
    crd.spec.versions.map((v) => [`${crd.metadata.name}/${v.name}`, v] as const),
  );

  it.each(versions)('%s describes every field', (name, version) => {
    expect(undescribed(version.schema.openAPIV3Schema, name)).toEqual([]);
    // What the API server refuses (422, "must not specify anything"): more than the type here.
    expect((version.schema.openAPIV3Schema.properties as Node).metadata).toEqual({
      type: 'object',
    });
  });

  it('finds fields without a description, also in items and map values', () => {
    const schema: Node = {
      type: 'object',
      description: 'root',
      properties: {
        spec: {
          type: 'object',
          description: 'spec',
          properties: {
            described: { type: 'string', description: 'yes' },
            blank: { type: 'string', description: ' ' },
            names: { type: 'array', description: 'a set', items: { type: 'string' } },
            list: {
              type: 'array',
              description: 'objects',
              items: { type: 'object', properties: { a: { type: 'string' } } },
            },
            map: {
              type: 'object',
              description: 'a map',
              additionalProperties: { type: 'object', description: 'value' },
            },
          },
        },
        status: { type: 'object' },
      },
    };
    expect(undescribed(schema, '$')).toEqual([
      '$.spec.blank',
      '$.spec.list[]',
      '$.spec.list[].a',
      '$.status',
    ]);
  });
});
