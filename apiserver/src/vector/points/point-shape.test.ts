import { describe, expect, test } from '@jest/globals';
import { EngineError, MalformedJson } from '../../errors/catalogue.js';
import { pointMembers } from '../json-members.js';
import { checkPointShape, denseComponents } from './point-shape.js';

/** Checks the point `text` against a collection of `size`-d vectors, as point 7 of a body. */
function check(text: string, size = 3): void {
  const raw = Buffer.from(text);
  const members = pointMembers(raw);
  const id = members.find((m) => m.name === 'id');
  const parsed = id ? (JSON.parse(text.slice(id.start, id.end)) as unknown) : undefined;
  checkPointShape(raw, members, parsed, 7, size);
}

/** The refusal `check` throws, as the caller would see it. */
function refusal(text: string, size = 3): { status: number; code: string; message: string } {
  try {
    check(text, size);
  } catch (err) {
    if (err instanceof EngineError || err instanceof MalformedJson) {
      return { status: err.status, code: err.code, message: err.message };
    }
    throw err;
  }
  throw new Error(`${text} was accepted`);
}

describe('checkPointShape', () => {
  test.each([
    ['a dense vector', '{"id":1,"vector":[1,2,3]}'],
    ['spaces and exponents', '{"id":1,"vector":[ 1 ,\n-2.5E+1,3e-40 ],"payload":{}}'],
    ['the unnamed vector by its name ""', '{"id":1,"vector":{"":[1,2,3]}}'],
    ['the largest float32', '{"id":1,"vector":[3.4028234e38,0,0]}'],
    ['a long fraction', `{"id":1,"vector":[0.${'1'.repeat(60)},0,0]}`],
  ])('accepts %s', (_, text) => {
    expect(() => check(text)).not.toThrow();
  });

  test.each([
    [
      'the wrong dimension',
      '{"id":1,"vector":[1,2]}',
      'Wrong input: Vector dimension error: expected dim: 3, got 2',
    ],
    [
      'an empty vector',
      '{"id":1,"vector":[ ]}',
      'Wrong input: Vector dimension error: expected dim: 3, got 0',
    ],
    [
      'a named vector',
      '{"id":1,"vector":{"image":[1,2,3]}}',
      'Wrong input: Not existing vector name error: image',
    ],
    [
      'a sparse vector',
      '{"id":1,"vector":{"text":{"indices":[1],"values":[0.5]}}}',
      'Wrong input: Not existing vector name error: text',
    ],
    [
      'a sparse vector under the unnamed name',
      '{"id":1,"vector":{"":{"indices":[1],"values":[0.5]}}}',
      'Format error in JSON body: points[7].vector: invalid type, expected a vector',
    ],
    [
      'a multi-vector',
      '{"id":1,"vector":[[1,2,3],[1,2,3],[1,2,3]]}',
      'Format error in JSON body: points[7].vector: invalid type, expected f32',
    ],
    [
      'a null component',
      '{"id":1,"vector":[1,null,3]}',
      'Format error in JSON body: points[7].vector: invalid type, expected f32',
    ],
    [
      'an unknown member',
      '{"id":1,"vectors":[1,2,3]}',
      'Format error in JSON body: points[7]: unknown field `vectors`, expected one of `id`, `vector`, `payload`',
    ],
    [
      'no vector',
      '{"id":1,"payload":{}}',
      'Format error in JSON body: points[7]: missing field `vector`',
    ],
    [
      'an id past 2^53-1',
      '{"id":18446744073709551615,"vector":[1,2,3]}',
      'Format error in JSON body: point id 18446744073709552000 is above 2^53-1, which this engine does not support',
    ],
  ])('refuses %s with 400 BAD_REQUEST in the engine words', (_, text, message) => {
    expect(refusal(text)).toEqual({ status: 400, code: 'BAD_REQUEST', message });
  });

  test.each([
    ['an exponent', '[1,1e39,3]', '1e+39'],
    ['a mantissa with an exponent', '[1,0.0005e42,3]', '5e+38'],
    ['39 digits', `[1,4${'0'.repeat(38)},3]`, '4e+38'],
  ])(
    'refuses a component past a float32 written with %s, as the engine does',
    (_, vector, shown) => {
      expect(refusal(`{"id":1,"vector":${vector}}`)).toEqual({
        status: 400,
        code: 'MALFORMED_JSON',
        message: `Format error in JSON body: points[7].vector[1]: number out of range for f32 (${shown}): components must be finite`,
      });
    },
  );

  test('refuses a NaN written as Python writes it as JSON that does not parse', () => {
    expect(refusal('{"id":1,"vector":[1,NaN,3]}')).toEqual(
      expect.objectContaining({ status: 400, code: 'MALFORMED_JSON' }),
    );
  });
});

describe('denseComponents', () => {
  const count = (vector: string) => {
    const raw = Buffer.from(`{"vector":${vector}}`);
    return denseComponents(raw, pointMembers(raw)[0]!);
  };

  test('counts the components of a vector of numbers without parsing it', () => {
    expect(count('[0.5, -1, 2e-3]')).toBe(3);
    expect(count('[7]')).toBe(1);
    expect(count('[]')).toBe(0);
  });

  test('leaves to parsing what it cannot count: literals, nesting, big numbers', () => {
    for (const vector of ['[1,true]', '[[1],[2]]', '{"":[1]}', '[1,Infinity]', '[1e38,2]']) {
      expect(count(vector)).toBe(-1);
    }
  });
});
