import { describe, expect, test } from '@jest/globals';
import { SchemaInference } from './infer.js';
import { compilePayloadSchema } from './validator.js';

describe('SchemaInference', () => {
  const payloads = [
    { title: 'a', price: 1, tags: ['x'], meta: { lang: 'en' } },
    { title: 'b', price: 2.5, tags: [], meta: { lang: 'de', draft: true } },
    { title: 'c', price: null },
  ];
  const inference = new SchemaInference();
  for (const p of payloads) inference.add(p);

  test('infers types per path and requires the keys every payload carried', () => {
    expect(inference.schema()).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        title: { type: 'string' },
        price: { type: ['null', 'number'] },
        tags: { type: 'array', items: { type: 'string' } },
        meta: {
          type: 'object',
          properties: { lang: { type: 'string' }, draft: { type: 'boolean' } },
          required: ['lang'],
        },
      },
      required: ['title', 'price'],
    });
  });

  test('summarises each path with its types and how often it was present', () => {
    expect(inference.fields()).toEqual([
      { field: 'title', types: ['string'], present_in: 3 },
      { field: 'price', types: ['null', 'number'], present_in: 3 },
      { field: 'tags', types: ['array'], present_in: 2 },
      { field: 'tags[]', types: ['string'], present_in: 1 },
      { field: 'meta', types: ['object'], present_in: 2 },
      { field: 'meta.lang', types: ['string'], present_in: 2 },
      { field: 'meta.draft', types: ['boolean'], present_in: 1 },
    ]);
  });

  test('produces a schema the sampled payloads conform to and that can be stored', () => {
    const validate = compilePayloadSchema(inference.schema());
    for (const p of payloads) expect(validate(p)).toBeNull();
    expect(validate({ price: 1 })!.field).toBe('title');
  });

  test('infers an open object schema from no payloads', () => {
    expect(new SchemaInference().schema()).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
    });
  });
});
