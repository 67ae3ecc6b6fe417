import { describe, expect, test } from '@jest/globals';
import {
  WILDCARD,
  formatJsonPath,
  getValues,
  mergeInto,
  projectPayload,
  removeAtPath,
  setAtPath,
  tryParseJsonPath,
  type JsonPath,
} from './json-path.js';

/** A path the test knows to be valid. */
function parseJsonPath(text: string): JsonPath {
  const path = tryParseJsonPath(text);
  if (!path) throw new Error(`not a path: ${text}`);
  return path;
}

describe('parsing', () => {
  test('reads keys, indices, wildcards and quoted keys', () => {
    expect(tryParseJsonPath('a.b[2][]."c.d"')).toEqual(['a', 'b', 2, WILDCARD, 'c.d']);
    expect(formatJsonPath(parseJsonPath('a.b[2][]."c.d"'))).toBe('a.b[2][]."c.d"');
  });

  test.each(['', 'a..b', 'a[x]', '.a', 'a b', '[0]'])('refuses %p', (text) => {
    expect(tryParseJsonPath(text)).toBeUndefined();
  });
});

describe('getValues', () => {
  const payload = { a: [{ b: 1 }, { b: [2, 3] }, { c: 4 }], o: { p: null }, s: 'x' };

  test('a key step into an array selects nothing; [] walks its elements', () => {
    expect(getValues(payload, parseJsonPath('a.b'))).toEqual([]);
    expect(getValues(payload, parseJsonPath('a[].b'))).toEqual([1, [2, 3]]);
    expect(getValues(payload, parseJsonPath('a[1].b'))).toEqual([[2, 3]]);
  });

  test('a present null is a value, a missing key is none', () => {
    expect(getValues(payload, parseJsonPath('o.p'))).toEqual([null]);
    expect(getValues(payload, parseJsonPath('o.q'))).toEqual([]);
    expect(getValues(payload, parseJsonPath('s.t'))).toEqual([]);
  });
});

describe('setAtPath and removeAtPath', () => {
  test('set creates objects on the way and replaces non-objects', () => {
    const payload: Record<string, unknown> = { s: 'v', arr: [{ k: 1 }, 3] };
    setAtPath(payload, parseJsonPath('s.t'), { w: 1 });
    setAtPath(payload, parseJsonPath('arr[]'), { w: 2 });
    setAtPath(payload, parseJsonPath('arr[7]'), { w: 3 });
    expect(payload).toEqual({ s: { t: { w: 1 } }, arr: [{ k: 1, w: 2 }, { w: 2 }] });
  });

  test('a null value removes the key it is merged into', () => {
    const payload: Record<string, unknown> = { a: { x: 1, y: 2 } };
    setAtPath(payload, parseJsonPath('a'), { x: null });
    expect(payload).toEqual({ a: { y: 2 } });
  });

  test('remove ignores single indices and empties arrays on []', () => {
    const payload: Record<string, unknown> = { arr: [{ k: 1, j: 2 }], b: [1, 2] };
    removeAtPath(payload, parseJsonPath('arr[0]'));
    removeAtPath(payload, parseJsonPath('arr[].k'));
    removeAtPath(payload, parseJsonPath('b[]'));
    expect(payload).toEqual({ arr: [{ j: 2 }], b: [] });
  });
});

test('projectPayload includes prefixes of a path and excludes subtrees', () => {
  const payload = { a: { b: 1, c: 2 }, n: [{ k: 1, j: 2 }], z: 3 };
  expect(
    projectPayload(payload, [parseJsonPath('a.b'), parseJsonPath('n[].k')], 'include'),
  ).toEqual({
    a: { b: 1 },
    n: [{ k: 1 }],
  });
  expect(projectPayload(payload, [parseJsonPath('a.c'), parseJsonPath('z')], 'exclude')).toEqual({
    a: { b: 1 },
    n: [{ k: 1, j: 2 }],
  });
});

test('a `__proto__` key is merged, set and projected as a key, as Qdrant stores it', () => {
  const source = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}') as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  mergeInto(merged, source);
  setAtPath(merged, parseJsonPath('__proto__.inner'), { x: 2 });
  expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  expect(JSON.stringify(merged)).toBe('{"__proto__":{"polluted":true,"inner":{"x":2}},"k":1}');
  const projected = projectPayload(merged, [parseJsonPath('__proto__')], 'include');
  expect(JSON.stringify(projected)).toBe('{"__proto__":{"polluted":true,"inner":{"x":2}}}');
});
