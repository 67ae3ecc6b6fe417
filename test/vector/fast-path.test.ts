/**
 * The fast path (apiserver/src/vector/fast-path.ts) answers the declared
 * routes that only forward and relay before Koa. Every request here goes to two planes
 * over the same database and engine, one with the fast path and one without, and
 * the answers must be the same: status, body and the headers a caller reads
 * (only the request id and the engine's `time` differ from run to run).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  createAgentKey,
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let lane: VectorServer;
let koaOnly: VectorServer;
let caller: VectorCaller;
let other: VectorCaller;

beforeAll(async () => {
  lane = await startVectorServer();
  koaOnly = await startVectorServer({
    db: lane.db,
    engineUrl: lane.engineUrl,
    engineApiKey: lane.engineApiKey,
    fastPath: false,
  });
  caller = await createVectorCaller(lane);
  other = await createVectorCaller(lane);
  await createCollection(lane, caller.key, 'docs', 4);
  const agent = await createAgentKey(lane, caller);
  const upsert = await vcall(lane, 'PUT', '/api/v1/collections/docs/points?wait=true', {
    key: agent.key,
    body: {
      points: [1, 2, 3].map((id) => ({
        id,
        vector: [id, 1, 0, 0],
        payload: { n: id, tag: id % 2 ? 'odd' : 'even' },
      })),
    },
  });
  expect(upsert.status).toBe(200);
});
afterAll(async () => {
  await koaOnly?.close();
  await lane?.close();
});

/** What a caller can see of an answer, with the run-to-run fields taken out. */
interface Seen {
  status: number;
  contentType: string | null;
  connection: string | null;
  wwwAuthenticate: string | null;
  requestId: string | null;
  body: unknown;
}

async function seen(
  base: string,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; requestId?: string },
): Promise<Seen> {
  const headers: Record<string, string> = {};
  if (opts.requestId) headers['x-request-id'] = opts.requestId;
  const res = await vcall({ base }, method, path, { ...opts, headers });
  const body = typeof res.body === 'object' && res.body !== null ? { ...res.body } : res.body;
  if (typeof body === 'object' && body !== null) {
    delete (body as Record<string, unknown>).time;
    const error = (body as { error?: Record<string, unknown> }).error;
    if (error) (body as Record<string, unknown>).error = { ...error, request_id: 'id' };
  }
  const requestId = res.headers.get('x-request-id');
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    connection: res.headers.get('connection'),
    wwwAuthenticate: res.headers.get('www-authenticate'),
    requestId: opts.requestId ? requestId : requestId && 'generated',
    body,
  };
}

const search = { vector: [1, 1, 0, 0], limit: 2, with_payload: true };

describe('the fast path answers as the Koa stack does', () => {
  const cases: [string, () => [string, string, Parameters<typeof seen>[3]]][] = [
    [
      'a search',
      () => ['POST', '/api/v1/collections/docs/points/search', { key: caller.key, body: search }],
    ],
    [
      'a search with a filter on the attested key',
      () => [
        'POST',
        '/api/v1/collections/docs/points/search',
        {
          key: caller.key,
          body: { ...search, filter: { must: [{ key: 'tag', match: { value: 'odd' } }] } },
        },
      ],
    ],
    [
      'a search with a trailing slash',
      () => ['POST', '/api/v1/collections/docs/points/search/', { key: caller.key, body: search }],
    ],
    [
      'a search with the path in capitals',
      () => ['POST', '/API/V1/COLLECTIONS/docs/POINTS/SEARCH', { key: caller.key, body: search }],
    ],
    [
      'a batch search',
      () => [
        'POST',
        '/api/v1/collections/docs/points/search/batch',
        { key: caller.key, body: { searches: [search, search] } },
      ],
    ],
    [
      'a query',
      () => [
        'POST',
        '/api/v1/collections/docs/points/query',
        { key: caller.key, body: { query: [1, 0, 0, 0], with_payload: true } },
      ],
    ],
    [
      'a query with lookup_from',
      () => [
        'POST',
        '/api/v1/collections/docs/points/query',
        { key: caller.key, body: { query: 1, lookup_from: { collection: 'docs' } } },
      ],
    ],
    [
      'a scroll',
      () => [
        'POST',
        '/api/v1/collections/docs/points/scroll?consistency=all',
        { key: caller.key, body: { limit: 2, with_payload: true } },
      ],
    ],
    [
      'a count with limit',
      () => [
        'POST',
        '/api/v1/collections/docs/points/count',
        { key: caller.key, body: { limit: 1, exact: true } },
      ],
    ],
    [
      'a retrieve',
      () => ['POST', '/api/v1/collections/docs/points', { key: caller.key, body: { ids: [1, 3] } }],
    ],
    [
      'a retrieve by the explicit path',
      () => [
        'POST',
        '/api/v1/collections/docs/points/retrieve',
        { key: caller.key, body: { ids: [2], with_vectors: true } },
      ],
    ],
    ['a point by id', () => ['GET', '/api/v1/collections/docs/points/2', { key: caller.key }]],
    [
      'a point that does not exist',
      () => ['GET', '/api/v1/collections/docs/points/99', { key: caller.key }],
    ],
    [
      'a bad point id',
      () => ['GET', '/api/v1/collections/docs/points/not-an-id', { key: caller.key }],
    ],
    [
      'a caller-chosen request id',
      () => [
        'POST',
        '/api/v1/collections/docs/points/count',
        { key: caller.key, body: {}, requestId: 'trace-123' },
      ],
    ],
    ['no key', () => ['POST', '/api/v1/collections/docs/points/search', { body: search }]],
    [
      'a key that is not valid',
      () => [
        'POST',
        '/api/v1/collections/docs/points/search',
        { key: `svc_live_${'B'.repeat(43)}`, body: search },
      ],
    ],
    [
      "another account's collection",
      () => ['POST', '/api/v1/collections/docs/points/search', { key: other.key, body: search }],
    ],
    [
      'a collection name that is not valid',
      () => [
        'POST',
        '/api/v1/collections/Bad%20Name/points/search',
        { key: caller.key, body: search },
      ],
    ],
    [
      'malformed JSON',
      () => [
        'POST',
        '/api/v1/collections/docs/points/search',
        { key: caller.key, rawBody: '{"vector": [1,' },
      ],
    ],
    [
      'a body that is not an object',
      () => ['POST', '/api/v1/collections/docs/points/count', { key: caller.key, rawBody: '[1]' }],
    ],
    [
      'a vector of the wrong size',
      () => [
        'POST',
        '/api/v1/collections/docs/points/search',
        { key: caller.key, body: { vector: [1, 2] } },
      ],
    ],
    [
      'a workspace that does not exist',
      () => [
        'POST',
        '/api/v1/workspaces/nowhere/collections/docs/points/search',
        { key: caller.key, body: search },
      ],
    ],
    [
      'an unsupported endpoint',
      () => ['POST', '/api/v1/collections/docs/points/shards', { key: caller.key, body: {} }],
    ],
    [
      'a method the route does not take',
      () => ['PATCH', '/api/v1/collections/docs/points/search', { key: caller.key, body: search }],
    ],
  ];

  test.each(cases)('%s', async (_, request) => {
    const [method, path, opts] = request();
    const viaLane = await seen(lane.base, method, path, opts);
    const viaKoa = await seen(koaOnly.base, method, path, opts);
    expect(viaLane).toEqual(viaKoa);
    expect(viaLane.contentType).toMatch(/^application\/json/);
  });

  test('a delete by id answers the same and deletes', async () => {
    const path = '/api/v1/collections/docs/points/delete?wait=true';
    const viaLane = await seen(lane.base, 'POST', path, { key: caller.key, body: { points: [3] } });
    const viaKoa = await seen(koaOnly.base, 'POST', path, {
      key: caller.key,
      body: { points: [3] },
    });
    // Each delete is an engine operation of its own, with its own id.
    const withoutOperation = ({ body, ...rest }: Seen) => {
      const { operation_id: _, ...result } = (body as { result: Record<string, unknown> }).result;
      return { ...rest, body: { ...(body as object), result } };
    };
    expect(withoutOperation(viaLane)).toEqual(withoutOperation(viaKoa));
    expect(viaLane.status).toBe(200);
    const count = await vcall<{ result: { count: number } }>(
      lane,
      'POST',
      '/api/v1/collections/docs/points/count',
      { key: caller.key, body: { exact: true } },
    );
    expect(count.body.result.count).toBe(2);
  });
});
