/**
 * Point, payload and index routes through the real gateway and engine:
 * tenancy rewriting, reserved keys, attested authorship, the contract's
 * limits, the streaming upsert and engine error normalisation.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  createAgentKey,
  createCollection,
  createVectorCaller,
  rawRequest,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';
import { BodyReads } from './streamed-body.js';

let server: VectorServer;
const reads = new BodyReads();
let owner: VectorCaller;
let agent: { key: string; agentId: string; deploymentId: string };

type Point = { id: number | string; payload?: Record<string, unknown> | null; vector?: unknown };
type Result<T> = { result: T; status: string };

const vec = (i: number) => [1, i % 7, (i * 3) % 5, 0.5];
const points = (
  n: number,
  from = 0,
  payload: (i: number) => Record<string, unknown> = () => ({}),
) =>
  Array.from({ length: n }, (_, k) => ({
    id: from + k,
    vector: vec(from + k),
    payload: payload(from + k),
  }));

const path = (collection: string, rest = '') => `/api/v1/collections/${collection}${rest}`;

beforeAll(async () => {
  server = await startVectorServer({ upsert: { onBodyRead: reads.onBodyRead } });
  owner = await createVectorCaller(server);
  agent = await createAgentKey(server, owner);
  await createCollection(server, owner.key, 'docs');
});
afterAll(async () => {
  await server?.close();
});

async function upsert(key: string, collection: string, body: unknown) {
  return vcall<ErrorBody & Result<unknown>>(
    server,
    'PUT',
    `${path(collection, '/points')}?wait=true`,
    {
      key,
      body,
    },
  );
}

describe('PUT /points (upsert)', () => {
  test('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await vcall<ErrorBody>(server, 'PUT', path('docs', '/points'), {
      body: { points: points(1) },
    });
    expect(res.status).toBe(401);
  });

  test('returns 400 MALFORMED_JSON for a body that is not JSON', async () => {
    const res = await vcall<ErrorBody>(server, 'PUT', path('docs', '/points'), {
      key: owner.key,
      rawBody: '{"points":[{"id":1,"vector":[1,2,3,4]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
  });

  test.each([
    ['a malformed number inside a vector', '{"points":[{"id":1,"vector":[1,,3,4]}]}'],
    ['a bare word inside a vector', '{"points":[{"id":1,"vector":[1,x,3,4]}]}'],
    ['brackets that do not match', '{"points":[{"id":1,"vector":[1,2,3,4}]}'],
    ['a point that is not an object', '{"points":[[1,2]]}'],
  ])('returns 400 MALFORMED_JSON for %s, and writes nothing', async (_, rawBody) => {
    const res = await vcall<ErrorBody>(server, 'PUT', `${path('docs', '/points')}?wait=true`, {
      key: owner.key,
      rawBody: rawBody.replace('"id":1', '"id":424242'),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
    const read = await vcall(server, 'GET', path('docs', '/points/424242'), { key: owner.key });
    expect(read.status).toBe(404);
  });

  test('forwards the vector as sent (copied, not re-serialised) with the payload stamped', async () => {
    const res = await vcall(server, 'PUT', `${path('docs', '/points')}?wait=true`, {
      key: owner.key,
      rawBody: '{"points":[{"vector" : [ 3.0e0, 4, 0.000 ,0 ],"id":424243,"payload":{"k":"v"}}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const read = await vcall<Result<Point[]>>(server, 'POST', path('docs', '/points/retrieve'), {
      key: owner.key,
      body: { ids: [424243], with_vector: true },
    });
    // Cosine collections store the normalised vector.
    expect(read.body.result).toEqual([
      {
        id: 424243,
        vector: [0.6, 0.8, 0, 0].map((x) => expect.closeTo(x, 6)),
        payload: { k: 'v', __svc_agent_id: null, __svc_deployment_id: null },
      },
    ]);
  });

  test.each([[-1], ['abc'], [1.5], [null], ['123']])(
    'returns 400 INVALID_POINT_ID for id %j',
    async (id) => {
      const res = await upsert(owner.key, 'docs', { points: [{ id, vector: vec(0) }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'INVALID_POINT_ID', field: 'points[0].id' }),
      );
    },
  );

  test('returns 400 RESERVED_FIELD for an internal __svc_ key', async () => {
    const res = await upsert(owner.key, 'docs', {
      points: [{ id: 1, vector: vec(1), payload: { __svc_tenant: 'x' } }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'RESERVED_FIELD', field: 'points[0].payload.__svc_tenant' }),
    );
  });

  test('refuses a lookup_from that is not a bare collection name, on query and query batch', async () => {
    for (const [route, body] of [
      ['/points/query', { query: vec(1), lookup_from: { collection: '../other' } }],
      ['/points/query/batch', { searches: [{ query: vec(1), lookup_from: { collection: 7 } }] }],
    ] as const) {
      const res = await vcall<ErrorBody>(server, 'POST', path('docs', route), {
        key: owner.key,
        body,
      });
      expect([route, res.status, res.body.error.code, res.body.error.field]).toEqual([
        route,
        400,
        'VALIDATION_ERROR',
        'lookup_from.collection',
      ]);
    }
  });

  test('returns 400 MALFORMED_JSON for a search body forwarded as sent that does not parse', async () => {
    const res = await vcall<ErrorBody>(server, 'POST', path('docs', '/points/search'), {
      key: owner.key,
      rawBody: '{"vector":[1,0,0,',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
  });

  test('returns 400 RESERVED_FIELD for an internal key spelled with escapes', async () => {
    const res = await vcall<ErrorBody>(server, 'PUT', `${path('docs', '/points')}?wait=true`, {
      key: owner.key,
      rawBody: '{"points":[{"id":1,"vector":[1,0,0,0],"payload":{"\\u005f_svc_tenant":"x"}}]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'RESERVED_FIELD', field: 'points[0].payload.__svc_tenant' }),
    );
  });

  test('stamps every payload shape the same way: none, null, empty, spaced, forged', async () => {
    const raw =
      '{"points":[' +
      '{"id":424250,"vector":[1,0,0,0]},' +
      '{"id":424251,"vector":[1,0,0,0],"payload":null},' +
      '{"id":424252,"vector":[1,0,0,0],"payload":{ \n }},' +
      '{"id":424253,"vector":[1,0,0,0],"payload":{ "a" : [1, {"b": "}"}] , "c":"d" \t}},' +
      '{"id":424254,"vector":[1,0,0,0],"payload":{"__svc_agent_id":"forged","k":1}}' +
      ']}';
    const res = await vcall(server, 'PUT', `${path('docs', '/points')}?wait=true`, {
      key: agent.key,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    const read = await vcall<Result<Point[]>>(server, 'POST', path('docs', '/points/retrieve'), {
      key: owner.key,
      body: { ids: [424250, 424251, 424252, 424253, 424254] },
    });
    const stamp = { __svc_agent_id: agent.agentId, __svc_deployment_id: agent.deploymentId };
    const byId = Object.fromEntries(read.body.result.map((p) => [p.id, p.payload]));
    expect(byId).toEqual({
      424250: stamp,
      424251: stamp,
      424252: stamp,
      424253: { a: [1, { b: '}' }], c: 'd', ...stamp },
      424254: { k: 1, ...stamp },
    });
  });

  test('returns 400 PAYLOAD_TOO_LARGE for a payload over 64 KB', async () => {
    const res = await upsert(owner.key, 'docs', {
      points: [{ id: 1, vector: vec(1), payload: { text: 'x'.repeat(66_000) } }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE', max: 65536 }),
    );
  });

  test('returns 400 TOO_MANY_POINTS for 10,001 points', async () => {
    const res = await upsert(owner.key, 'docs', { points: points(10_001, 100_000) });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'TOO_MANY_POINTS', max: 10_000 }),
    );
  });

  test('returns 413 PAYLOAD_TOO_LARGE for a body declared over 500 MB', async () => {
    const res = await rawRequest(
      server.base,
      'PUT',
      path('docs', '/points'),
      {
        authorization: `Bearer ${owner.key}`,
        'content-type': 'application/json',
        'content-length': 500 * 1024 * 1024 + 1,
      },
      (req) => req.write('{"points":['),
    );
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('returns 408 REQUEST_IDLE_TIMEOUT when the body stops arriving', async () => {
    const impatient = await startVectorServer({ upsert: { idleTimeoutMs: 300 } });
    try {
      const caller = await createVectorCaller(impatient);
      await createCollection(impatient, caller.key, 'slow');
      const res = await rawRequest(
        impatient.base,
        'PUT',
        '/api/v1/collections/slow/points',
        {
          authorization: `Bearer ${caller.key}`,
          'content-type': 'application/json',
          'content-length': 1000,
        },
        (req) => req.write('{"points":[{"id":1,'),
      );
      expect(res.status).toBe(408);
      expect(res.body.error.code).toBe('REQUEST_IDLE_TIMEOUT');
    } finally {
      await impatient.close();
    }
  });

  test('returns 400 VALIDATION_ERROR for the column-wise batch form', async () => {
    const res = await upsert(owner.key, 'docs', { batch: { ids: [1], vectors: [vec(1)] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'batch' }),
    );
  });

  test('returns 404 COLLECTION_NOT_FOUND for a collection the account does not have', async () => {
    const res = await upsert(owner.key, 'missing', { points: points(1) });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'COLLECTION_NOT_FOUND', collection_name: 'missing' }),
    );
  });

  test('maps an engine rejection to BAD_REQUEST without the tenant-scoped name', async () => {
    const res = await upsert(owner.key, 'docs', { points: [{ id: 1, vector: [1, 2] }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(JSON.stringify(res.body)).not.toMatch(/[tw]_live_/);
  });

  test('streams 2,500 points in batches and counts them all', async () => {
    await createCollection(server, owner.key, 'bulk');
    const res = await upsert(owner.key, 'bulk', { points: points(2_500) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    const count = await vcall<Result<{ count: number }>>(
      server,
      'POST',
      path('bulk', '/points/count'),
      {
        key: owner.key,
        body: { exact: true, limit: 3 },
      },
    );
    expect(count.status).toBe(200);
    expect(count.body.result.count).toBe(2_500);
  });
});

describe('a streamed upsert of several batches', () => {
  /**
   * Upserts `{"points": [...], ...tail}` in two pieces, the second once the
   * gateway has read the first, so it has a full batch (the first 1,100
   * points) before it sees the end of `points` and the members after it.
   */
  function upsertInTwoPieces(
    collection: string,
    all: Point[],
    tail: Record<string, unknown> = {},
  ): Promise<{ status: number; body: ErrorBody }> {
    const json = (list: Point[]) => list.map((p) => JSON.stringify(p)).join(',');
    const members = Object.entries(tail).map(
      ([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`,
    );
    const pieces = [
      `{"points":[${json(all.slice(0, 1_100))},`,
      `${json(all.slice(1_100))}]${members.join('')}}`,
    ];
    return reads.send(server.base, owner.key, collection, pieces);
  }

  /** The exact number of points in `collection`. */
  async function countIn(collection: string): Promise<number> {
    const res = await vcall<Result<{ count: number }>>(
      server,
      'POST',
      path(collection, '/points/count'),
      { key: owner.key, body: { exact: true } },
    );
    expect(res.status).toBe(200);
    return res.body.result.count;
  }

  /** The `v` of each point's payload, by id. */
  async function versions(collection: string, ids: number[]): Promise<Record<number, unknown>> {
    const res = await vcall<Result<Point[]>>(server, 'POST', path(collection, '/points/retrieve'), {
      key: owner.key,
      body: { ids },
    });
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.result.map((p) => [p.id, p.payload?.v]));
  }

  test('writes no point when update_mode after 1,200 points is invalid', async () => {
    await createCollection(server, owner.key, 'late-bad-mode');
    const res = await upsertInTwoPieces('late-bad-mode', points(1_200), {
      update_mode: 'sometimes',
    });
    expect(res.status).toBe(400);
    expect(await countIn('late-bad-mode')).toBe(0);
  });

  test('writes no point when point 1,101 of 1,200 has a malformed id', async () => {
    await createCollection(server, owner.key, 'late-bad-id');
    const body = points(1_200);
    body[1_100]!.id = -1;
    const res = await upsertInTwoPieces('late-bad-id', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_POINT_ID');
    expect(await countIn('late-bad-id')).toBe(0);
  });

  test('applies update_mode and update_filter sent after 1,200 points to every batch', async () => {
    await createCollection(server, owner.key, 'late-guard');
    const seeded = await upsert(owner.key, 'late-guard', {
      points: points(10, 0, () => ({ v: 'old' })),
    });
    expect(seeded.status).toBe(200);

    // insert_only: the ten points that exist (all in the first batch) keep their payload.
    const inserted = await upsertInTwoPieces(
      'late-guard',
      points(1_200, 0, () => ({ v: 'new' })),
      { update_mode: 'insert_only' },
    );
    expect(inserted.status).toBe(200);
    expect(await countIn('late-guard')).toBe(1_200);
    expect(await versions('late-guard', [0, 9, 10, 1_150])).toEqual({
      0: 'old',
      9: 'old',
      10: 'new',
      1_150: 'new',
    });

    // update_filter: only points whose v is "new" are overwritten, in both batches.
    const filtered = await upsertInTwoPieces(
      'late-guard',
      points(1_200, 0, () => ({ v: 'newer' })),
      { update_filter: { must: [{ key: 'v', match: { value: 'new' } }] } },
    );
    expect(filtered.status).toBe(200);
    expect(await versions('late-guard', [0, 9, 10, 1_150])).toEqual({
      0: 'old',
      9: 'old',
      10: 'newer',
      1_150: 'newer',
    });
  });
});

describe('attested authorship', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'authored');
    await upsert(owner.key, 'authored', {
      points: [{ id: 1, vector: vec(1), payload: { by: 'user', __svc_agent_id: 'forged' } }],
    });
    await upsert(agent.key, 'authored', {
      points: [
        { id: 2, vector: vec(2), payload: { by: 'agent', __svc_deployment_id: 'forged' } },
        { id: 3, vector: vec(3), payload: { by: 'agent' } },
      ],
    });
  });

  const retrieve = async (ids: number[]) =>
    (
      await vcall<Result<Point[]>>(server, 'POST', path('authored', '/points/retrieve'), {
        key: owner.key,
        body: { ids },
      })
    ).body.result;

  test('stamps null for a user key and the agent and deployment for an agent key, ignoring sent values', async () => {
    const got = await retrieve([1, 2]);
    expect(got.find((p) => p.id === 1)!.payload).toEqual({
      by: 'user',
      __svc_agent_id: null,
      __svc_deployment_id: null,
    });
    expect(got.find((p) => p.id === 2)!.payload).toEqual({
      by: 'agent',
      __svc_agent_id: agent.agentId,
      __svc_deployment_id: agent.deploymentId,
    });
  });

  test('returns the attested keys on search and can filter on them', async () => {
    const search = await vcall<Result<Point[]>>(
      server,
      'POST',
      path('authored', '/points/search'),
      {
        key: owner.key,
        body: {
          vector: vec(2),
          limit: 10,
          with_payload: true,
          filter: { must: [{ key: '__svc_agent_id', match: { value: agent.agentId } }] },
        },
      },
    );
    expect(search.status).toBe(200);
    expect(search.body.result.map((p) => p.id).sort()).toEqual([2, 3]);
    expect(search.body.result[0]!.payload).toEqual(
      expect.objectContaining({ __svc_agent_id: agent.agentId }),
    );
  });

  test('re-attributes a point to the last writer on payload set, overwrite, key delete, clear and vector update', async () => {
    const by = async () => (await retrieve([1]))[0]!.payload!.__svc_agent_id;
    const asAgent = (method: string, rest: string, body: unknown) =>
      vcall(server, method, `${path('authored', rest)}?wait=true`, { key: agent.key, body });
    const asUser = (method: string, rest: string, body: unknown) =>
      vcall(server, method, `${path('authored', rest)}?wait=true`, { key: owner.key, body });

    expect(
      (await asAgent('POST', '/points/payload', { payload: { a: 1 }, points: [1] })).status,
    ).toBe(200);
    expect(await by()).toBe(agent.agentId);
    expect(
      (await asUser('PUT', '/points/payload', { payload: { b: 2 }, points: [1] })).status,
    ).toBe(200);
    expect(await by()).toBeNull();
    expect((await retrieve([1]))[0]!.payload).toEqual({
      b: 2,
      __svc_agent_id: null,
      __svc_deployment_id: null,
    });
    expect(
      (
        await asAgent('POST', '/points/payload/delete', {
          keys: ['b', '__svc_agent_id'],
          points: [1],
        })
      ).status,
    ).toBe(200);
    expect((await retrieve([1]))[0]!.payload).toEqual({
      __svc_agent_id: agent.agentId,
      __svc_deployment_id: agent.deploymentId,
    });
    expect((await asUser('POST', '/points/payload/clear', { points: [1] })).status).toBe(200);
    expect(await by()).toBeNull();
    expect(
      (await asAgent('PUT', '/points/vectors', { points: [{ id: 1, vector: vec(5) }] })).status,
    ).toBe(200);
    expect(await by()).toBe(agent.agentId);
  });

  test('returns both keys, null, on every read after a user key merges or deletes payload keys', async () => {
    await upsert(agent.key, 'authored', {
      points: [{ id: 4, vector: vec(4), payload: { by: 'agent', n: 1 } }],
    });
    const asUser = (rest: string, body: unknown) =>
      vcall(server, 'POST', `${path('authored', rest)}?wait=true`, { key: owner.key, body });
    const unattested = { __svc_agent_id: null, __svc_deployment_id: null };
    const reads = async () => {
      const one = await vcall<Result<Point>>(server, 'GET', path('authored', '/points/4'), {
        key: owner.key,
      });
      const search = await vcall<Result<Point[]>>(
        server,
        'POST',
        path('authored', '/points/search'),
        {
          key: owner.key,
          body: {
            vector: vec(4),
            limit: 10,
            with_payload: true,
            filter: { must: [{ has_id: [4] }] },
          },
        },
      );
      const scroll = await vcall<Result<{ points: Point[] }>>(
        server,
        'POST',
        path('authored', '/points/scroll'),
        { key: owner.key, body: { offset: 4, limit: 1 } },
      );
      const query = await vcall<Result<{ points: Point[] }>>(
        server,
        'POST',
        path('authored', '/points/query'),
        {
          key: owner.key,
          body: { query: vec(4), filter: { must: [{ has_id: [4] }] }, with_payload: true },
        },
      );
      const batch = await vcall<Result<Point[][]>>(
        server,
        'POST',
        path('authored', '/points/search/batch'),
        {
          key: owner.key,
          body: {
            searches: [
              { vector: vec(4), limit: 1, filter: { must: [{ has_id: [4] }] }, with_payload: true },
            ],
          },
        },
      );
      return [
        one.body.result.payload,
        (await retrieve([4]))[0]!.payload,
        search.body.result[0]!.payload,
        scroll.body.result.points[0]!.payload,
        query.body.result.points[0]!.payload,
        batch.body.result[0]![0]!.payload,
      ];
    };

    expect((await asUser('/points/payload', { payload: { m: 2 }, points: [4] })).status).toBe(200);
    const got = await reads();
    expect(got).toEqual(got.map(() => ({ by: 'agent', n: 1, m: 2, ...unattested })));
    await upsert(agent.key, 'authored', {
      points: [{ id: 4, vector: vec(4), payload: { by: 'agent', n: 1 } }],
    });
    expect((await asUser('/points/payload/delete', { keys: ['n'], points: [4] })).status).toBe(200);
    for (const payload of await reads()) expect(payload).toEqual({ by: 'agent', ...unattested });
  });

  test('puts back only the attested keys a payload selector asks for', async () => {
    await vcall(server, 'POST', `${path('authored', '/points/payload')}?wait=true`, {
      key: owner.key,
      body: { payload: { m: 3 }, points: [4] },
    });
    const read = async (withPayload: unknown) =>
      (
        await vcall<Result<{ points: Point[] }>>(
          server,
          'POST',
          path('authored', '/points/scroll'),
          {
            key: owner.key,
            body: { offset: 4, limit: 1, with_payload: withPayload },
          },
        )
      ).body.result.points[0]!.payload;
    expect(await read(['m'])).toEqual({ m: 3 });
    expect(await read({ include: ['m', '__svc_agent_id'] })).toEqual({
      m: 3,
      __svc_agent_id: null,
    });
    expect(await read({ exclude: ['by', '__svc_deployment_id'] })).toEqual({
      m: 3,
      __svc_agent_id: null,
    });
    expect(await read(false)).toBeNull();
  });

  test("blocks the collection's deletion once the agent has written to it", async () => {
    const res = await vcall<ErrorBody>(server, 'DELETE', path('authored'), { key: owner.key });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'COLLECTION_IN_USE', agents: [agent.agentId] }),
    );
  });

  test('returns 400 RESERVED_FIELD for an internal key in a payload set or key delete', async () => {
    const set = await vcall<ErrorBody>(server, 'POST', path('authored', '/points/payload'), {
      key: owner.key,
      body: { payload: { __svc_x: 1 }, points: [1] },
    });
    expect(set.status).toBe(400);
    expect(set.body.error.code).toBe('RESERVED_FIELD');
    const del = await vcall<ErrorBody>(server, 'POST', path('authored', '/points/payload/delete'), {
      key: owner.key,
      body: { keys: ['__svc_x'], points: [1] },
    });
    expect(del.body.error.code).toBe('RESERVED_FIELD');
  });

  test('strips other internal __svc_ keys from reads', async () => {
    const engineName = `t_live_${owner.accountId.replaceAll('-', '')}_authored`;
    // Written behind the gateway's back, as an internal process would.
    await fetch(`${server.engineUrl}/collections/${engineName}/points?wait=true`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'api-key': server.engineApiKey },
      body: JSON.stringify({
        points: [
          {
            id: 9,
            vector: vec(9),
            payload: {
              k: 1,
              __svc_internal: 'secret',
              __svc_agent_id: null,
              __svc_deployment_id: null,
            },
          },
        ],
      }),
    });
    const got = await vcall(server, 'GET', path('authored', '/points/9'), { key: owner.key });
    expect(got.status).toBe(200);
    expect(got.text).not.toContain('__svc_internal');
    expect((got.body as Result<Point>).result.payload).toEqual({
      k: 1,
      __svc_agent_id: null,
      __svc_deployment_id: null,
    });
  });
});

describe('read routes', () => {
  beforeAll(async () => {
    await createCollection(server, owner.key, 'reads');
    await upsert(owner.key, 'reads', {
      points: points(20, 0, (i) => ({ n: i, even: i % 2 === 0 })),
    });
  });

  test('returns 400 INVALID_POINT_ID for a malformed id in retrieve and GET', async () => {
    const retrieve = await vcall<ErrorBody>(server, 'POST', path('reads', '/points/retrieve'), {
      key: owner.key,
      body: { ids: [1, 'nope'] },
    });
    expect(retrieve.status).toBe(400);
    expect(retrieve.body.error).toEqual(
      expect.objectContaining({ code: 'INVALID_POINT_ID', field: 'ids[1]' }),
    );
    const get = await vcall<ErrorBody>(server, 'GET', path('reads', '/points/nope'), {
      key: owner.key,
    });
    expect(get.body.error.code).toBe('INVALID_POINT_ID');
  });

  test('returns 404 NOT_FOUND in the envelope for a point that does not exist', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', path('reads', '/points/999'), {
      key: owner.key,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.body.error.message).not.toMatch(/[tw]_live_/);
  });

  test('retrieve defaults to payload without vector, and POST /points falls through to it', async () => {
    for (const rest of ['/points/retrieve', '/points']) {
      const res = await vcall<Result<Point[]>>(server, 'POST', path('reads', rest), {
        key: owner.key,
        body: { ids: [3] },
      });
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual([
        expect.objectContaining({ id: 3, payload: expect.objectContaining({ n: 3 }) }),
      ]);
      expect(res.body.result[0]!.vector ?? null).toBeNull();
    }
  });

  test('reads with_vector singular and ignores the plural on search', async () => {
    const singular = await vcall<Result<Point[]>>(server, 'POST', path('reads', '/points/search'), {
      key: owner.key,
      body: { vector: vec(1), limit: 1, with_vector: true },
    });
    expect(Array.isArray(singular.body.result[0]!.vector)).toBe(true);
    const plural = await vcall<Result<Point[]>>(server, 'POST', path('reads', '/points/search'), {
      key: owner.key,
      body: { vector: vec(1), limit: 1, with_vectors: true },
    });
    expect(plural.body.result[0]!.vector ?? null).toBeNull();
  });

  test('passes the engine filter language and scroll pagination through unchanged', async () => {
    const res = await vcall<Result<{ points: Point[]; next_page_offset: unknown }>>(
      server,
      'POST',
      path('reads', '/points/scroll'),
      {
        key: owner.key,
        body: {
          limit: 5,
          with_payload: true,
          filter: { must: [{ key: 'even', match: { value: true } }] },
        },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.points.map((p) => p.id)).toEqual([0, 2, 4, 6, 8]);
    expect(res.body.result.next_page_offset).toBe(10);
  });

  test('count ignores a limit key', async () => {
    const res = await vcall<Result<{ count: number }>>(
      server,
      'POST',
      path('reads', '/points/count'),
      {
        key: owner.key,
        body: {
          exact: true,
          limit: 1,
          filter: { must: [{ key: 'even', match: { value: false } }] },
        },
      },
    );
    expect(res.body.result.count).toBe(10);
  });

  test('query answers the nearest points', async () => {
    const res = await vcall<Result<{ points: Point[] }>>(
      server,
      'POST',
      path('reads', '/points/query'),
      {
        key: owner.key,
        body: { query: vec(4), limit: 3 },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.points).toHaveLength(3);
  });
});

describe('delete and index routes', () => {
  test('returns 400 INVALID_POINT_ID for a malformed id in a delete', async () => {
    await createCollection(server, owner.key, 'deletes');
    const res = await vcall<ErrorBody>(server, 'POST', path('deletes', '/points/delete'), {
      key: owner.key,
      body: { points: [{}] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_POINT_ID');
  });

  test('deletes points by id and by filter', async () => {
    await createCollection(server, owner.key, 'deletes');
    await upsert(owner.key, 'deletes', { points: points(6, 0, (i) => ({ g: i < 3 ? 'a' : 'b' })) });
    const send = (body: unknown) =>
      vcall(server, 'POST', `${path('deletes', '/points/delete')}?wait=true`, {
        key: owner.key,
        body,
      });
    expect((await send({ points: [0] })).status).toBe(200);
    expect((await send({ filter: { must: [{ key: 'g', match: { value: 'b' } }] } })).status).toBe(
      200,
    );
    const count = await vcall<Result<{ count: number }>>(
      server,
      'POST',
      path('deletes', '/points/count'),
      {
        key: owner.key,
        body: { exact: true },
      },
    );
    expect(count.body.result.count).toBe(2);
  });

  test('creates and deletes a payload index', async () => {
    await createCollection(server, owner.key, 'indexed');
    const made = await vcall(server, 'PUT', `${path('indexed', '/index')}?wait=true`, {
      key: owner.key,
      body: { field_name: 'g', field_schema: 'keyword' },
    });
    expect(made.status).toBe(200);
    const gone = await vcall(server, 'DELETE', `${path('indexed', '/index/g')}?wait=true`, {
      key: owner.key,
    });
    expect(gone.status).toBe(200);
  });
});

describe('response size and engine failures', () => {
  test('returns 413 RESPONSE_TOO_LARGE with size_mb and max_size_mb past 10 MB', async () => {
    await createCollection(server, owner.key, 'wide', 1024);
    const wide = Array.from({ length: 1500 }, (_, i) => ({
      id: i,
      vector: Array.from({ length: 1024 }, (_, d) => Math.sin(i * 1024 + d) / 3 + 0.123456789),
    }));
    expect((await upsert(owner.key, 'wide', { points: wide })).status).toBe(200);
    const res = await vcall<ErrorBody>(server, 'POST', path('wide', '/points/scroll'), {
      key: owner.key,
      body: { limit: 1500, with_vector: true },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 'RESPONSE_TOO_LARGE',
        max_size_mb: 10,
        size_mb: expect.any(Number),
      }),
    );
  });

  test('returns 502 PROXY_ERROR, retriable, when the engine cannot be reached', async () => {
    const orphan = await startVectorServer({ engineUrl: 'http://127.0.0.1:1' });
    try {
      const caller = await createVectorCaller(orphan);
      const res = await vcall<ErrorBody>(orphan, 'POST', '/api/v1/collections', {
        key: caller.key,
        body: { name: 'x', vectors: { size: 4, distance: 'dot' } },
      });
      expect(res.status).toBe(502);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'PROXY_ERROR', retriable: true }),
      );
    } finally {
      await orphan.close();
    }
  });
});
