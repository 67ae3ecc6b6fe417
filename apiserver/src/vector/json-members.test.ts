import { describe, expect, test } from '@jest/globals';
import { arrayElements, plainArrayEnd, pointMembers } from './json-members.js';

function members(text: string): Record<string, string>[] {
  const raw = Buffer.from(text);
  return pointMembers(raw).map((m) => ({
    name: m.name,
    value: raw.subarray(m.start, m.end).toString(),
  }));
}

describe('pointMembers', () => {
  test('finds each member and the exact bytes of its value', () => {
    expect(
      members(' { "id" : 7 , "vector":[1.5,-2e3, 0],"payload":{"a":[1,{"b":"}]\\""}],"c":null} } '),
    ).toEqual([
      { name: 'id', value: '7' },
      { name: 'vector', value: '[1.5,-2e3, 0]' },
      { name: 'payload', value: '{"a":[1,{"b":"}]\\""}],"c":null}' },
    ]);
  });

  test('handles named and sparse vectors, string ids and escaped names', () => {
    expect(
      members(
        '{"id":"5c56c793-69f3-4fbf-87e6-c4bf54c28c26","vector":{"text":{"indices":[1],"values":[0.5]}},"p\\u0061yload":{}}',
      ),
    ).toEqual([
      { name: 'id', value: '"5c56c793-69f3-4fbf-87e6-c4bf54c28c26"' },
      { name: 'vector', value: '{"text":{"indices":[1],"values":[0.5]}}' },
      { name: 'payload', value: '{}' },
    ]);
  });

  test('keeps a repeated name twice, in order', () => {
    expect(members('{"id":1,"id":2}').map((m) => m.value)).toEqual(['1', '2']);
  });

  test('accepts an empty object', () => {
    expect(members(' {} ')).toEqual([]);
  });

  test.each([
    ['not an object', '[1,2]'],
    ['a member without a name', '{1:2}'],
    ['a missing colon', '{"id" 1}'],
    ['a missing value', '{"id":,"vector":[1]}'],
    ['mismatched brackets', '{"id":1,"vector":[1,2}}'],
    ['a stray closing bracket', '{"id":1]}'],
    ['an unterminated string', '{"id":"abc}'],
    ['an unterminated object', '{"id":1,"vector":[1,2]'],
    ['trailing data', '{"id":1} x'],
    ['a trailing comma before the end', '{"id":1,}'],
  ])('refuses %s with 400 MALFORMED_JSON', (_, text) => {
    expect(() => pointMembers(Buffer.from(text))).toThrow(
      expect.objectContaining({ status: 400, code: 'MALFORMED_JSON' }),
    );
  });
});

describe('plainArrayEnd', () => {
  const at = (text: string) => plainArrayEnd(Buffer.from(text), text.indexOf('['));

  test('finds the end of a dense vector', () => {
    const text = '{"vector":[1, -2.5e3,0.75 ],"id":1}';
    expect(at(text)).toBe(text.indexOf(']'));
  });

  test.each([
    ['nested arrays (a multivector)', '[[1,2],[3,4]]'],
    ['an object inside', '[{"indices":[1]}]'],
    ['a string inside', '[1,"]",2]'],
    ['no end', '[1,2,3'],
  ])('declines %s', (_, text) => {
    expect(at(text)).toBe(-1);
  });
});

describe('arrayElements', () => {
  const elements = (text: string) => {
    const raw = Buffer.from(text);
    const { elements: found, end } = arrayElements(raw, text.indexOf('['));
    return {
      values: found.map((e) => raw.toString('utf8', e.start, e.end)),
      rest: text.slice(end),
    };
  };

  test('finds each element, trimmed, and the end of the array', () => {
    expect(
      elements('{"result":[ [{"id":1,"p":{"s":"],"}}], [] ,{"points":[]},3 ],"time":1}'),
    ).toEqual({
      values: ['[{"id":1,"p":{"s":"],"}}]', '[]', '{"points":[]}', '3'],
      rest: ',"time":1}',
    });
  });

  test('finds no element in an empty array', () => {
    expect(elements('[ ]x')).toEqual({ values: [], rest: 'x' });
  });

  test.each([
    ['not an array', '{"a":1}', 0],
    ['an empty element', '[1,,2]', 0],
    ['a trailing comma', '[1,]', 0],
    ['a "}" closing it', '[1,2}', 0],
    ['no end', '[1,[2]', 0],
  ])('refuses %s with 400 MALFORMED_JSON', (_, text, open) => {
    expect(() => arrayElements(Buffer.from(text), open)).toThrow(
      expect.objectContaining({ status: 400, code: 'MALFORMED_JSON' }),
    );
  });
});
