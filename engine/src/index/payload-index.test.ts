import { expect, test } from '@jest/globals';
import { parseFilter } from '../filter/parse.js';
import type { FieldCondition } from '../filter/types.js';
import { parseJsonPath } from '../json-path.js';
import { FieldIndex } from './payload-index.js';

function condition(raw: unknown): FieldCondition {
  return parseFilter({ must: [raw] })!.must![0] as FieldCondition;
}

test('an integer index answers match and range from integers only', () => {
  const index = new FieldIndex('n', parseJsonPath('n'), { type: 'integer' });
  [{ n: 1 }, { n: [2, 3] }, { n: 2.5 }, { n: '2' }, {}].forEach((p, slot) => index.add(slot, p));
  expect([...index.candidates(condition({ key: 'n', match: { value: 2 } }))!]).toEqual([1]);
  expect([...index.candidates(condition({ key: 'n', range: { gte: 1.5 } }))!].sort()).toEqual([1]);
  expect(index.candidates(condition({ key: 'n', match: { value: '2' } }))).toBeUndefined();
  expect(index.pointsCount).toBe(2);
});

test('a keyword index follows removals', () => {
  const index = new FieldIndex('k', parseJsonPath('k'), { type: 'keyword' });
  index.add(0, { k: 'a' });
  index.add(1, { k: ['a', 'b'] });
  index.remove(0);
  expect([...index.candidates(condition({ key: 'k', match: { any: ['a'] } }))!]).toEqual([1]);
});

test('a keyword index answers prefix and substring from its string values only', () => {
  const index = new FieldIndex('k', parseJsonPath('k'), { type: 'keyword' });
  [{ k: 'redish' }, { k: ['blue', 'reddy'] }, { k: 'Red' }, { k: 'a-red' }, { k: 5 }].forEach(
    (p, slot) => index.add(slot, p),
  );
  const slots = (match: unknown) =>
    [...index.candidates(condition({ key: 'k', match }))!].sort((a, b) => a - b);
  expect(slots({ prefix: 'red' })).toEqual([0, 1]);
  expect(slots({ substring: 'red' })).toEqual([0, 1, 3]);
  expect(slots({ prefix: '' })).toEqual([0, 1, 2, 3]);
});

test('indexes answer nothing they cannot answer exactly', () => {
  const keyword = new FieldIndex('k', parseJsonPath('k'), { type: 'keyword' });
  const integer = new FieldIndex('k', parseJsonPath('k'), { type: 'integer' });
  const text = new FieldIndex('k', parseJsonPath('k'), { type: 'text' });
  for (const raw of [
    { key: 'k', match: { except: ['a'] } },
    { key: 'k', match: { value: 'a' }, is_empty: false },
    { key: 'k', match: { value: 'a' }, range: { gt: 1 } },
    { key: 'k', values_count: { gt: 1 } },
    { key: 'k', is_null: true },
  ]) {
    expect(keyword.candidates(condition(raw))).toBeUndefined();
  }
  expect(integer.candidates(condition({ key: 'k', match: { prefix: '1' } }))).toBeUndefined();
  expect(text.candidates(condition({ key: 'k', match: { substring: 'a' } }))).toBeUndefined();
  expect(text.candidates(condition({ key: 'k', match: { text: 'a' } }))).toBeUndefined();
});

test('ordered lists a point once per distinct value, from a start value', () => {
  const index = new FieldIndex('n', parseJsonPath('n'), { type: 'float' });
  [{ n: 3 }, { n: [1, 5, 5] }, { n: 2 }].forEach((p, slot) => index.add(slot, p));
  expect([...index.ordered('asc', 2)]).toEqual([
    { value: 2, slot: 2 },
    { value: 3, slot: 0 },
    { value: 5, slot: 1 },
  ]);
  expect([...index.ordered('desc')].map((e) => e.value)).toEqual([5, 3, 2, 1]);
});

test('a range marked for every slot reads slots of many values and follows removal and remap', () => {
  const index = new FieldIndex('n', parseJsonPath('n'), { type: 'integer' });
  [{ n: 1 }, { n: [5, 2] }, { n: 2.5 }, { n: 7 }, {}].forEach((p, slot) => index.add(slot, p));
  const marked = (range: unknown) => {
    const out = new Uint8Array(5);
    const undecided = index.markMatches(condition({ key: 'n', range }), out)!;
    return { slots: [...out.keys()].filter((s) => out[s] === 1), undecided: [...undecided] };
  };
  expect(marked({ gte: 2, lte: 5 })).toEqual({ slots: [1], undecided: [2] });
  expect(marked({ gt: 5 })).toEqual({ slots: [3], undecided: [2] });
  index.remove(1);
  expect(marked({ gte: 2, lte: 5 })).toEqual({ slots: [], undecided: [2] });
  // A vacuum drops the removed slot 1; the others move down one.
  index.remap(Int32Array.from([0, -1, 1, 2, 3]));
  expect(marked({ gt: 0 })).toEqual({ slots: [0, 2], undecided: [1] });
  expect(index.markMatches(condition({ key: 'n', match: { value: 'a' } }), new Uint8Array(5))).toBe(
    undefined,
  );
});
