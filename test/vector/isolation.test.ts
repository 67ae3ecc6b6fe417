/**
 * Tenant isolation: account B cannot read, write, count, delete or learn of
 * account A's collections or points through any route, filter or id, nor
 * through A's engine name; a test-environment key of A does not see A's live
 * collections either.
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
let a: VectorCaller;
let b: VectorCaller;
let aEngineName: string;

type Result<T> = { result: T };

const vec = (i: number) => [1, i, 2, 3];
const A_POINTS = [1, 2, 3].map((id) => ({ id, vector: vec(id), payload: { owner: 'a', id } }));

beforeAll(async () => {
  server = await startVectorServer();
  a = await createVectorCaller(server);
  b = await createVectorCaller(server);
  aEngineName = `t_live_${a.accountId.replaceAll('-', '')}_secret`;
  await createCollection(server, a.key, 'secret');
  const res = await vcall(server, 'PUT', '/api/v1/collections/secret/points?wait=true', {
    key: a.key,
    body: { points: A_POINTS },
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

async function aStillHasEverything(): Promise<void> {
  const count = await vcall<Result<{ count: number }>>(
    server,
    'POST',
    '/api/v1/collections/secret/points/count',
    { key: a.key, body: { exact: true } },
  );
  expect(count.body.result.count).toBe(3);
  const get = await vcall<Result<{ payload: Record<string, unknown> }>>(
    server,
    'GET',
    '/api/v1/collections/secret/points/1',
    { key: a.key },
  );
  expect(get.body.result.payload).toEqual(expect.objectContaining({ owner: 'a' }));
}

const ROUTES: [string, string, unknown][] = [
  ['GET', '', undefined],
  ['PATCH', '', { description: 'mine now' }],
  ['DELETE', '', undefined],
  ['PUT', '/points?wait=true', { points: [{ id: 1, vector: vec(9), payload: { owner: 'b' } }] }],
  ['POST', '/points/search', { vector: vec(1), limit: 10, with_payload: true }],
  ['POST', '/points/query', { query: vec(1), limit: 10 }],
  [
    'POST',
    '/points/scroll',
    { limit: 10, filter: { must: [{ key: 'owner', match: { value: 'a' } }] } },
  ],
  ['POST', '/points/count', { exact: true }],
  ['POST', '/points/retrieve', { ids: [1, 2, 3] }],
  ['POST', '/points', { ids: [1] }],
  ['GET', '/points/1', undefined],
  ['POST', '/points/delete?wait=true', { points: [1, 2, 3] }],
  ['POST', '/points/payload?wait=true', { payload: { owner: 'b' }, points: [1] }],
  ['PUT', '/points/payload?wait=true', { payload: { owner: 'b' }, points: [1] }],
  ['POST', '/points/payload/delete?wait=true', { keys: ['owner'], points: [1] }],
  ['POST', '/points/payload/clear?wait=true', { points: [1] }],
  ['PUT', '/points/vectors?wait=true', { points: [{ id: 1, vector: vec(7) }] }],
  ['PUT', '/index?wait=true', { field_name: 'owner', field_schema: 'keyword' }],
  ['DELETE', '/index/owner?wait=true', undefined],
];

describe("another account's collection", () => {
  test.each(ROUTES)(
    "returns 403 COLLECTION_OWNERSHIP_MISMATCH for %s %s under A's engine name",
    async (method, rest, body) => {
      const res = await vcall<ErrorBody>(
        server,
        method,
        `/api/v1/collections/${aEngineName}${rest}`,
        {
          key: b.key,
          body,
        },
      );
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('COLLECTION_OWNERSHIP_MISMATCH');
    },
  );

  test("answers DELETE of A's bare name as of a name nobody has ({result: false}), and A's collection stays", async () => {
    const res = await vcall(server, 'DELETE', '/api/v1/collections/secret', { key: b.key });
    const never = await vcall(server, 'DELETE', '/api/v1/collections/nobody-has', { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: false, status: 'ok' });
    expect(never.body).toEqual(res.body);
    const still = await vcall(server, 'GET', '/api/v1/collections/secret', { key: a.key });
    expect(still.status).toBe(200);
  });

  test.each(ROUTES.filter(([method, rest]) => !(method === 'DELETE' && rest === '')))(
    "returns 404 COLLECTION_NOT_FOUND for %s %s under A's bare name, as for a name nobody has",
    async (method, rest, body) => {
      const res = await vcall<ErrorBody>(server, method, `/api/v1/collections/secret${rest}`, {
        key: b.key,
        body,
      });
      const never = await vcall<ErrorBody>(
        server,
        method,
        `/api/v1/collections/nobody-has${rest}`,
        {
          key: b.key,
          body,
        },
      );
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('COLLECTION_NOT_FOUND');
      // Nothing in the answer tells A's collection apart from one that does not exist.
      expect(res.body.error.message.replace('secret', 'X')).toBe(
        never.body.error.message.replace('nobody-has', 'X'),
      );
      expect(res.text).not.toContain(a.accountId.replaceAll('-', ''));
    },
  );

  test('left A’s collection and points untouched after every attempt', async () => {
    await aStillHasEverything();
  });

  test('does not list A’s collections', async () => {
    const res = await vcall<Result<{ collections: unknown[] }>>(
      server,
      'GET',
      '/api/v1/collections',
      {
        key: b.key,
      },
    );
    expect(res.body.result.collections).toEqual([]);
  });

  test('returns 400 VALIDATION_ERROR for an encoded slash trying to escape the tenant', async () => {
    const res = await vcall<ErrorBody>(
      server,
      'POST',
      `/api/v1/collections/..%2F${aEngineName}/points/scroll`,
      { key: b.key, body: {} },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test('returns 404 through a workspace twin', async () => {
    const res = await vcall<ErrorBody>(
      server,
      'POST',
      '/api/v1/workspaces/default/collections/secret/points/search',
      {
        key: b.key,
        body: { vector: vec(1), limit: 3 },
      },
    );
    expect(res.status).toBe(404);
  });
});

describe('a collection of the same name in another account', () => {
  test('is a separate collection: B sees only its own points by id, filter and count', async () => {
    await createCollection(server, b.key, 'secret');
    await vcall(server, 'PUT', '/api/v1/collections/secret/points?wait=true', {
      key: b.key,
      body: { points: [{ id: 1, vector: vec(1), payload: { owner: 'b' } }] },
    });
    const retrieve = await vcall<Result<{ id: number; payload: { owner: string } }[]>>(
      server,
      'POST',
      '/api/v1/collections/secret/points/retrieve',
      { key: b.key, body: { ids: [1, 2, 3] } },
    );
    expect(retrieve.body.result.map((p) => [p.id, p.payload.owner])).toEqual([[1, 'b']]);
    const filtered = await vcall<Result<{ points: unknown[] }>>(
      server,
      'POST',
      '/api/v1/collections/secret/points/scroll',
      { key: b.key, body: { filter: { must: [{ key: 'owner', match: { value: 'a' } }] } } },
    );
    expect(filtered.body.result.points).toEqual([]);
    const count = await vcall<Result<{ count: number }>>(
      server,
      'POST',
      '/api/v1/collections/secret/points/count',
      { key: b.key, body: { exact: true } },
    );
    expect(count.body.result.count).toBe(1);
    // B empties and deletes its own: A's is untouched.
    await vcall(server, 'POST', '/api/v1/collections/secret/points/delete?wait=true', {
      key: b.key,
      body: { filter: {} },
    });
    expect(
      (await vcall(server, 'DELETE', '/api/v1/collections/secret', { key: b.key })).status,
    ).toBe(200);
    await aStillHasEverything();
  });

  test("A's test-environment key does not see A's live collection", async () => {
    const testKey = await server.accounts.createKey({
      accountId: a.accountId,
      environment: 'test',
    });
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections/secret', {
      key: testKey.text,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('COLLECTION_NOT_FOUND');
  });
});
