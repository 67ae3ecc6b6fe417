/**
 * The engine's query API and strict bodies through the real gateway and engine: the
 * engine's 400 for a field it does not know or does not implement comes back in the
 * gateway's envelope (BAD_REQUEST, the engine's message), grouped reads are forwarded
 * (with lookup_from rewritten to the caller's collections), prefetch with fusion and
 * recommend answer, and a conditional upsert only overwrites the points its filter
 * passes. Facets (a collection route the contract does not list) stay unsupported.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let owner: VectorCaller;

type Point = { id: number | string; score?: number; payload?: Record<string, unknown> | null };
type Groups = { result: { groups: { id: string | number; hits: Point[] }[] } };
type Points = { result: { points: Point[] } };

const path = (collection: string, rest = '') => `/api/v1/collections/${collection}${rest}`;
const vec = (i: number) => [1, i % 7, (i * 3) % 5, 0.5];

beforeAll(async () => {
  server = await startVectorServer();
  owner = await createVectorCaller(server);
  await createCollection(server, owner.key, 'docs');
  await createCollection(server, owner.key, 'examples');
  const points = Array.from({ length: 30 }, (_, i) => ({
    id: i,
    vector: vec(i),
    payload: { color: ['red', 'green', 'blue'][i % 3], n: i },
  }));
  for (const name of ['docs', 'examples']) {
    const res = await vcall(server, 'PUT', `${path(name, '/points')}?wait=true`, {
      key: owner.key,
      body: { points },
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await server?.close();
});

const post = <T>(rest: string, body: unknown, key: string | undefined = owner.key) =>
  vcall<T & ErrorBody>(server, 'POST', path('docs', rest), { ...(key ? { key } : {}), body });

describe('engine refusals through the gateway', () => {
  test('returns 401 MISSING_API_KEY on points/query/groups without a key', async () => {
    const res = await post('/points/query/groups', { query: vec(1), group_by: 'color' }, '');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  test('returns 400 BAD_REQUEST naming an unknown field, not MALFORMED_JSON', async () => {
    const res = await post('/points/search', { vector: vec(1), limit: 3, lmit: 3 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toMatch(/unknown field `lmit`, expected one of `shard_key`/);
  });

  test('returns 400 BAD_REQUEST for an unknown enum value (two variants expected)', async () => {
    const res = await post('/points/scroll', { order_by: { key: 'n', direction: 'up' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toMatch(/unknown variant `up`, expected `asc` or `desc`/);
  });

  test.each([
    [
      'query mmr',
      '/points/query',
      { query: { nearest: vec(1), mmr: { diversity: 0.5 } } },
      'query.mmr',
    ],
    ['query formula', '/points/query', { query: { formula: { sum: [1] } } }, 'query.formula'],
    ['shard_key', '/points/query', { query: vec(1), shard_key: 'a' }, 'shard_key'],
    [
      'groups with_lookup',
      '/points/query/groups',
      { query: vec(1), group_by: 'color', with_lookup: 'examples' },
      'with_lookup',
    ],
  ])('returns 400 BAD_REQUEST saying %s is not supported', async (_what, rest, body, field) => {
    const res = await post(rest, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.message).toContain(`\`${field}\` is not supported by this engine`);
  });

  test('returns 400 VALIDATION_ERROR for a lookup_from in a grouped query that is not a bare name', async () => {
    const res = await post('/points/query/groups', {
      query: 3,
      group_by: 'color',
      lookup_from: { collection: 'other/tenant' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('returns 404 "Unsupported endpoint" for facet, which the contract does not list', async () => {
    const res = await post('/facet', { key: 'color' });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Unsupported endpoint');
  });
});

describe('query API through the gateway', () => {
  test('groups a query and a search by a payload key', async () => {
    const query = await post<Groups>('/points/query/groups', {
      query: vec(4),
      group_by: 'color',
      group_size: 2,
      limit: 3,
    });
    expect(query.status).toBe(200);
    expect(query.body.result.groups.map((g) => g.id).sort()).toEqual(['blue', 'green', 'red']);
    for (const group of query.body.result.groups) expect(group.hits).toHaveLength(2);
    const search = await post<Groups>('/points/search/groups', {
      vector: vec(4),
      group_by: 'color',
      group_size: 1,
      limit: 2,
      with_payload: true,
    });
    expect(search.status).toBe(200);
    expect(search.body.result.groups).toHaveLength(2);
    for (const group of search.body.result.groups) {
      expect(group.hits[0]!.payload!.color).toBe(group.id);
    }
  });

  test('reads the vector of a grouped query from the caller collection lookup_from names', async () => {
    const res = await post<Groups>('/points/query/groups', {
      query: 4,
      group_by: 'color',
      limit: 1,
      group_size: 1,
      lookup_from: { collection: 'examples' },
    });
    expect(res.status).toBe(200);
    // Point 4 of `examples` is a vector, not a point of `docs`, so 4 itself may be found.
    expect(res.body.result.groups[0]!.hits[0]!.score).toBeCloseTo(1, 5);
  });

  test('fuses two prefetches with rrf and recommends from point ids', async () => {
    const fused = await post<Points>('/points/query', {
      prefetch: [
        { query: vec(1), limit: 5 },
        { query: vec(2), limit: 5 },
      ],
      query: { fusion: 'rrf' },
      limit: 4,
    });
    expect(fused.status).toBe(200);
    expect(fused.body.result.points).toHaveLength(4);
    expect(fused.body.result.points[0]!.score).toBeGreaterThan(fused.body.result.points[3]!.score!);
    const recommended = await post<Points>('/points/query', {
      query: { recommend: { positive: [1], negative: [2], strategy: 'best_score' } },
      limit: 5,
    });
    expect(recommended.status).toBe(200);
    const ids = recommended.body.result.points.map((p) => p.id);
    expect(ids).toHaveLength(5);
    expect(ids).not.toContain(1);
    expect(ids).not.toContain(2);
  });

  test('a conditional upsert overwrites only the points its update_filter passes', async () => {
    const res = await vcall(server, 'PUT', `${path('docs', '/points')}?wait=true`, {
      key: owner.key,
      body: {
        points: [
          { id: 0, vector: vec(0), payload: { color: 'guarded' } },
          { id: 1, vector: vec(1), payload: { color: 'guarded' } },
          { id: 100, vector: vec(5), payload: { color: 'guarded' } },
        ],
        update_filter: { must: [{ key: 'color', match: { value: 'green' } }] },
      },
    });
    expect(res.status).toBe(200);
    const read = await post<{ result: Point[] }>('/points/retrieve', { ids: [0, 1, 100] });
    const colors = Object.fromEntries(read.body.result.map((p) => [p.id, p.payload!.color]));
    // 0 was red (kept), 1 was green (overwritten), 100 did not exist (inserted).
    expect(colors).toEqual({ 0: 'red', 1: 'guarded', 100: 'guarded' });
  });
});
