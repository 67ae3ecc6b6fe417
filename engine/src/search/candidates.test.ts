import { afterEach, expect, test } from '@jest/globals';
import { parseFilter } from '../filter/parse.js';
import { Collection } from '../store/collection.js';
import { newCollectionConfig } from '../store/collection-config.js';
import { filterCandidates } from './candidates.js';

const open: Collection[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

/** A collection of ten points, `kw` indexed: point i has kw `k${i % 3}` and n = i. */
function collection(): Collection {
  const c = new Collection(newCollectionConfig('c', 2, 'Dot'), {
    threshold: Infinity,
    idleMs: 600_000,
    onError: (error) => {
      throw error;
    },
  });
  open.push(c);
  c.apply({ type: 'create_index', field: 'kw', schema: { type: 'keyword' } }, 1);
  const points = Array.from({ length: 10 }, (_, id) => ({
    id,
    vector: Float32Array.from([1, id]),
    payload: { kw: `k${id % 3}`, n: id },
  }));
  c.apply({ type: 'upsert', points }, 2);
  return c;
}

/** The ids of a filter's candidate slots, or undefined when no index answers it. */
function candidateIds(c: Collection, filter: unknown): number[] | undefined {
  const slots = filterCandidates(c, parseFilter(filter)!);
  return slots && [...slots].map((slot) => c.points.ids[slot] as number).sort((a, b) => a - b);
}

const kw = (match: unknown) => ({ key: 'kw', match });

test('the smallest set of the indexed must conditions, has_id among them', () => {
  const c = collection();
  expect(candidateIds(c, { must: [kw({ value: 'k1' })] })).toEqual([1, 4, 7]);
  expect(candidateIds(c, { must: [kw({ value: 'k1' }), { has_id: [4, 5] }] })).toEqual([4, 5]);
  expect(candidateIds(c, { must: [kw({ prefix: 'k' }), kw({ any: ['k0', 'k2'] })] })).toEqual([
    0, 2, 3, 5, 6, 8, 9,
  ]);
});

test('looks into a filter given as a must condition, as the query API combines them', () => {
  const c = collection();
  const inner = { must: [kw({ value: 'k2' })], should: [{ has_id: [0] }] };
  expect(candidateIds(c, { must: [inner, { key: 'n', range: { gte: 0 } }] })).toEqual([2, 5, 8]);
});

test('answers nothing for what binds no point: should, must_not, nested, unindexed keys', () => {
  const c = collection();
  expect(candidateIds(c, { should: [kw({ value: 'k1' })] })).toBeUndefined();
  expect(candidateIds(c, { must_not: [kw({ value: 'k1' })] })).toBeUndefined();
  expect(candidateIds(c, { must: [{ should: [kw({ value: 'k1' })] }] })).toBeUndefined();
  expect(candidateIds(c, { must: [kw({ except: ['k1'] })] })).toBeUndefined();
  expect(candidateIds(c, { must: [{ key: 'n', match: { value: 3 } }] })).toBeUndefined();
  const nested = { nested: { key: 'kw', filter: { must: [kw({ value: 'k1' })] } } };
  expect(candidateIds(c, { must: [nested] })).toBeUndefined();
});
