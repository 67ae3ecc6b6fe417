/**
 * The engine reads every body as Qdrant's serde types do, and refuses rather than
 * ignores: an unknown field or enum value is a 400 "Format error in JSON body: unknown
 * field ...", a field Qdrant has and the engine lacks is a 400 naming it "not supported",
 * and every count (limit, offset, group_size, batch sizes, rrf k) past its maximum is a
 * 400, never a 5xx. Route by route, through the real engine over HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { call, callRaw, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

let engine: EngineProcess;
const api = (method: string, path: string, body?: unknown) =>
  call(engine.url, method, `/collections/s${path}`, body);
const errorOf = (res: { body: { status?: unknown } }) =>
  String((res.body.status as { error?: string } | undefined)?.error);

beforeAll(async () => {
  engine = await startEngine();
  await call(engine.url, 'PUT', '/collections/s', { vectors: { size: 2, distance: 'Dot' } });
  await api('PUT', '/points?wait=true', {
    points: [1, 2, 3].map((id) => ({ id, vector: [id, 1], payload: { kw: 'a', n: id } })),
  });
  await api('PUT', '/index?wait=true', { field_name: 'n', field_schema: 'integer' });
});
afterAll(async () => {
  await engine?.dispose();
});

describe('unknown fields', () => {
  test.each([
    ['POST', '/points/search', { vector: [1, 0], limit: 1, lmit: 2 }, 'lmit'],
    ['POST', '/points/query', { query: [1, 0], qurey: 1 }, 'qurey'],
    [
      'POST',
      '/points/query',
      { prefetch: [{ query: [1, 0], offset: 1 }], query: [1, 0] },
      'offset',
    ],
    ['POST', '/points/query/groups', { query: [1, 0], group_by: 'kw', groupby: 'n' }, 'groupby'],
    [
      'POST',
      '/points/search/groups',
      { vector: [1, 0], group_by: 'kw', group_size: 1, limit: 1, offset: 1 },
      'offset',
    ],
    ['POST', '/points/scroll', { limt: 1 }, 'limt'],
    ['POST', '/points/count', { filter: null, exct: true }, 'exct'],
    ['POST', '/points', { ids: [1], with_paylod: true }, 'with_paylod'],
    ['POST', '/facet', { key: 'n', limt: 1 }, 'limt'],
    ['PUT', '/points?wait=true', { points: [{ id: 1, vector: [1, 1], paylod: {} }] }, 'paylod'],
    ['PUT', '/points?wait=true', { points: [], update_filtr: {} }, 'update_filtr'],
    [
      'PUT',
      '/points/vectors?wait=true',
      { points: [{ id: 1, vector: [1, 1], payload: {} }] },
      'payload',
    ],
    ['POST', '/points/payload?wait=true', { points: [1], payload: {}, keys: ['a'] }, 'keys'],
    ['POST', '/points/delete?wait=true', { points: [1], filtr: {} }, 'filtr'],
    [
      'PUT',
      '/index?wait=true',
      { field_name: 'kw', field_schema: { type: 'keyword', lowercase: true } },
      'lowercase',
    ],
  ])('%s %s refuses the unknown field %j', async (method, path, body, field) => {
    const res = await api(method, path, body);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toMatch(
      new RegExp(`Format error in JSON body: .*unknown field \`${field}\`, expected`),
    );
  });

  test('refuses an unknown field in the collection create and an unknown variant of a query', async () => {
    const created = await call(engine.url, 'PUT', '/collections/t', {
      vectors: { size: 2, distance: 'Dot' },
      shards: 2,
    });
    expect(created.status).toBe(400);
    expect(errorOf(created)).toMatch(/unknown field `shards`/);
    const query = await api('POST', '/points/query', { query: { sample: 'first' } });
    expect(query.status).toBe(400);
    expect(errorOf(query)).toMatch(/unknown variant `first`, expected `random`/);
  });
});

describe('fields the engine does not implement', () => {
  test.each([
    ['POST', '/points/search', { vector: [1, 0], limit: 1, shard_key: 'a' }, 'shard_key'],
    [
      'POST',
      '/points/search',
      { vector: [1, 0], limit: 1, params: { indexed_only: true } },
      'params.indexed_only',
    ],
    ['POST', '/points/query', { query: { nearest: [1, 0], mmr: {} } }, 'query.mmr'],
    ['POST', '/points/query', { query: { formula: {} } }, 'query.formula'],
    [
      'POST',
      '/points/query/groups',
      { query: [1, 0], group_by: 'kw', with_lookup: 'x' },
      'with_lookup',
    ],
    [
      'PATCH',
      '',
      { strict_mode_config: { enabled: true, max_query_limit: 1 } },
      'strict_mode_config',
    ],
    ['PATCH', '', { hnsw_config: { m: 4 } }, 'hnsw_config'],
  ])('%s %s refuses %j, naming it', async (method, path, body, field) => {
    const res = await api(method, path, body);
    expect(res.status).toBe(400);
    expect(errorOf(res)).toContain(`\`${field}\` is not supported by this engine`);
  });

  test('refuses product quantization, sparse vectors and strict mode at creation, and takes an empty update', async () => {
    for (const extra of [
      { quantization_config: { product: { compression: 'x4' } } },
      { sparse_vectors: { s: {} } },
      { strict_mode_config: { enabled: true } },
    ]) {
      const res = await call(engine.url, 'PUT', '/collections/t', {
        vectors: { size: 2, distance: 'Dot' },
        ...extra,
      });
      expect(res.status).toBe(400);
      // Scalar quantization is implemented (test/engine/quantization.test.ts); product is named.
      expect(errorOf(res)).toMatch(
        new RegExp(`\`${Object.keys(extra)[0]}(\\.product)?\` is not supported`),
      );
    }
    expect((await call(engine.url, 'GET', '/collections/t')).status).toBe(404);
    expect((await api('PATCH', '', {})).status).toBe(200);
  });

  test('refuses scroll offset with order_by, as Qdrant does', async () => {
    const res = await api('POST', '/points/scroll', { order_by: 'n', offset: 2 });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toContain('Offset is not supported when ordering by field');
  });
});

describe('numeric bounds', () => {
  const huge = ['18446744073709551615', '4294967296', '1e12'];
  test.each([
    ['/points/search', (n: string) => `{"vector":[1,0],"limit":${n}}`],
    ['/points/search', (n: string) => `{"vector":[1,0],"limit":1,"offset":${n}}`],
    ['/points/query', (n: string) => `{"query":[1,0],"limit":${n}}`],
    ['/points/query', (n: string) => `{"query":[1,0],"prefetch":{"query":[1,0],"limit":${n}}}`],
    ['/points/query', (n: string) => `{"prefetch":[{"query":[1,0]}],"query":{"rrf":{"k":${n}}}}`],
    ['/points/query/groups', (n: string) => `{"query":[1,0],"group_by":"kw","group_size":${n}}`],
    ['/points/query/groups', (n: string) => `{"query":[1,0],"group_by":"kw","limit":${n}}`],
    [
      '/points/search/groups',
      (n: string) => `{"vector":[1,0],"group_by":"kw","group_size":1,"limit":${n}}`,
    ],
    ['/points/scroll', (n: string) => `{"limit":${n}}`],
    ['/facet', (n: string) => `{"key":"n","limit":${n}}`],
  ])('POST %s answers 400 for each huge count', async (path, body) => {
    for (const n of huge) {
      const res = await callRaw(engine.url, 'POST', `/collections/s${path}`, body(n));
      expect(res.status).toBe(400);
    }
  });

  test('refuses more than 1,000 searches in one batch', async () => {
    const searches = Array.from({ length: 1001 }, () => ({ vector: [1, 0], limit: 1 }));
    const res = await api('POST', '/points/search/batch', { searches });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toContain('maximum of 1000');
  });
});

describe('what is implemented', () => {
  test('reads with_vectors as with_vector, and refuses both at once', async () => {
    const res = await api('POST', '/points/scroll', { limit: 1, with_vectors: true });
    expect(res.status).toBe(200);
    expect((res.body.result as { points: { vector: number[] }[] }).points[0]!.vector).toEqual([
      1, 1,
    ]);
    const both = await api('POST', '/points', { ids: [1], with_vector: true, with_vectors: true });
    expect(both.status).toBe(400);
  });

  test('upserts with update_mode insert_only and update_only', async () => {
    await api('PUT', '/points?wait=true', {
      points: [
        { id: 1, vector: [9, 9], payload: { kw: 'insert_only' } },
        { id: 10, vector: [9, 9], payload: { kw: 'insert_only' } },
      ],
      update_mode: 'insert_only',
    });
    await api('PUT', '/points?wait=true', {
      points: [
        { id: 2, vector: [9, 9], payload: { kw: 'update_only' } },
        { id: 11, vector: [9, 9], payload: { kw: 'update_only' } },
      ],
      update_mode: 'update_only',
    });
    const res = await api('POST', '/points', { ids: [1, 2, 10, 11] });
    const kw = Object.fromEntries(
      (res.body.result as { id: number; payload: { kw: string } }[]).map((p) => [
        p.id,
        p.payload.kw,
      ]),
    );
    expect(kw).toEqual({ 1: 'a', 2: 'update_only', 10: 'insert_only' });
  });

  test('facets an indexed key, most frequent first', async () => {
    const res = await api('POST', '/facet', { key: 'n', limit: 2 });
    expect(res.status).toBe(200);
    expect((res.body.result as { hits: unknown[] }).hits).toHaveLength(2);
    const unindexed = await api('POST', '/facet', { key: 'kw' });
    expect(unindexed.status).toBe(400);
    expect(errorOf(unindexed)).toContain('No appropriate index for faceting');
  });
});
