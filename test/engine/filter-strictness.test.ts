/**
 * Filters the engine does not understand are refused over HTTP, on every route that takes
 * one, before anything is read or written (issue 18): a misspelt key once read as "no
 * condition", and `points/delete` by such a filter deleted the whole collection. Each
 * malformed shape is a 400 in Qdrant's envelope naming the key, and the points are all
 * still there afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

let engine: EngineProcess;
const api = (method: string, path: string, body?: unknown) =>
  call(engine.url, method, `/collections/strict${path}`, body);
const errorOf = (res: { body: { status?: unknown } }) =>
  (res.body.status as { error?: string } | undefined)?.error ?? '';

const POINTS = [
  { id: 1, vector: [1, 0], payload: { color: 'red', n: [{ k: 'a' }] } },
  { id: 2, vector: [0, 1], payload: { color: 'blue', n: [{ k: 'b' }] } },
  { id: 3, vector: [1, 1], payload: { color: 'redish' } },
];

const must = (condition: unknown) => ({ must: [condition] });
const field = (extra: Record<string, unknown>) => must({ key: 'color', ...extra });

/** One malformed filter of each kind, with what the 400 must name. */
const MALFORMED: [string, unknown, string][] = [
  ['a misspelt key', must({ kye: 'color', match: { value: 'red' } }), 'unknown field `kye`'],
  ['an unknown clause', { mustt: [{ key: 'color', match: { value: 'red' } }] }, '`mustt`'],
  ['a bare has_id', { has_id: [1] }, 'unknown field `has_id`'],
  ['a misspelt match', field({ mtch: { value: 'red' } }), 'unknown field `mtch`'],
  ['an unknown match variant', field({ match: { regex: 'r.*' } }), 'unknown field `regex`'],
  ['two match variants', field({ match: { value: 'red', any: ['blue'] } }), 'exactly one of'],
  ['a wrong match type', field({ match: { value: 1.5 } }), 'invalid type'],
  ['a misspelt range bound', field({ range: { gtt: 1 } }), 'unknown field `gtt`'],
  ['a bad datetime', field({ range: { gt: 'yesterday' } }), 'RFC3339'],
  ['a negative values_count', field({ values_count: { gt: -1 } }), 'usize'],
  ['an empty condition', must({}), 'empty condition'],
  ['two kinds in one condition', must({ has_id: [1], must: [] }), 'exactly one kind'],
  ['an is_empty string', must({ is_empty: 'color' }), 'invalid type'],
  ['a misspelt nested filter', must({ nested: { key: 'n', filter: must({ kye: 'k' }) } }), '`kye`'],
  ['an open polygon', field({ geo_polygon: { exterior: { points: [] } } }), 'at least 4'],
  ['a misspelt min_should', { min_should: { conditions: [], min_cnt: 1 } }, '`min_cnt`'],
];

beforeAll(async () => {
  engine = await startEngine();
  await api('PUT', '', { vectors: { size: 2, distance: 'Dot' } });
  await api('PUT', '/points?wait=true', { points: POINTS });
});
afterAll(async () => {
  await engine?.dispose();
});

async function pointCount(): Promise<number> {
  const res = await api('POST', '/points/count', { exact: true });
  expect(res.status).toBe(200);
  return (res.body.result as { count: number }).count;
}

/** Every route that takes a filter, with a body carrying `filter`. */
const ROUTES: [string, string, (filter: unknown) => unknown][] = [
  ['POST', '/points/delete?wait=true', (filter) => ({ filter })],
  ['POST', '/points/count', (filter) => ({ filter, exact: true })],
  ['POST', '/points/scroll', (filter) => ({ filter, limit: 10 })],
  ['POST', '/points/search', (filter) => ({ filter, vector: [1, 0], limit: 10 })],
  ['POST', '/points/query', (filter) => ({ filter, query: [1, 0], limit: 10 })],
  ['POST', '/points/payload?wait=true', (filter) => ({ filter, payload: { hit: true } })],
  ['PUT', '/points/payload?wait=true', (filter) => ({ filter, payload: { hit: true } })],
  ['POST', '/points/payload/delete?wait=true', (filter) => ({ filter, keys: ['color'] })],
  ['POST', '/points/payload/clear?wait=true', (filter) => ({ filter })],
];

describe('a misspelt filter key', () => {
  const misspelt = must({ kye: 'color', match: { value: 'red' } });

  test('points/delete answers 400 naming the key and deletes nothing', async () => {
    const res = await api('POST', '/points/delete?wait=true', { filter: misspelt });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatch(
      /^Format error in JSON body: filter\.must\[0\]: unknown field `kye`, expected a condition/,
    );
    expect(await pointCount()).toBe(3);
  });

  test('points/count answers 400 instead of counting every point', async () => {
    const res = await api('POST', '/points/count', { filter: misspelt, exact: true });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatch(/unknown field `kye`/);
  });
});

describe.each(MALFORMED)('%s', (_what, filter, named) => {
  test.each(ROUTES)('%s %s answers 400 and changes nothing', async (method, path, body) => {
    const res = await api(method, path, body(filter));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatch(/^Format error in JSON body: /);
    expect(errorOf(res)).toContain(named);
    const state = await api('POST', '/points/scroll', { limit: 10, with_payload: true });
    const points = (state.body.result as { points: { id: number; payload: unknown }[] }).points;
    expect(points.map(({ id, payload }) => ({ id, payload }))).toEqual(
      POINTS.map(({ id, payload }) => ({ id, payload })),
    );
  });
});

test('a recognised condition the engine does not evaluate is a 400 saying so', async () => {
  const res = await api('POST', '/points/delete?wait=true', {
    filter: must({ slice: { total: 2, index: 0 } }),
  });
  expect(res.status).toBe(400);
  expect(errorOf(res)).toBe(
    'Bad request: filter.must[0]: the `slice` condition is not supported by this engine',
  );
  expect(await pointCount()).toBe(3);
});

test('a well-formed filter still selects and deletes exactly what it says', async () => {
  const prefix = { must: [{ key: 'color', match: { prefix: 'red' } }] };
  const counted = await api('POST', '/points/count', { filter: prefix, exact: true });
  expect(counted.body.result).toEqual({ count: 2 });
  const deleted = await api('POST', '/points/delete?wait=true', {
    filter: { must: [{ key: 'color', match: { value: 'blue' } }] },
  });
  expect(deleted.status).toBe(200);
  expect(await pointCount()).toBe(2);
});
