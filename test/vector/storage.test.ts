/**
 * The plan's vector storage cap through the real gateway and engine: writes
 * that add data are refused with 429 STORAGE_LIMIT_EXCEEDED (not retriable)
 * once the account's estimated storage reaches the cap (an upsert: when
 * its whole body would pass it, before anything is written), deletes still work
 * and free room, and the cap is per account across environments.
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

// 2 KiB: 4-d vectors are 16 bytes a point, so a few dozen points with small payloads fill it.
const CAP_MB = 2 / 1024;

let server: VectorServer;

const points = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => ({
    id: from + k,
    vector: [1, (from + k) % 7, 0.5, 2],
    payload: { title: `point number ${from + k}` },
  }));

const path = (collection: string, rest = '') => `/api/v1/collections/${collection}${rest}`;

beforeAll(async () => {
  server = await startVectorServer({
    plansJson: JSON.stringify({ starter: { vectorStorageMb: CAP_MB } }),
    storageTtlMs: 0,
    upsert: { batchPoints: 10 },
  });
});
afterAll(async () => {
  await server?.close();
});

function upsert(caller: VectorCaller, collection: string, body: unknown) {
  return vcall<ErrorBody>(server, 'PUT', `${path(collection, '/points')}?wait=true`, {
    key: caller.key,
    body,
  });
}

async function count(caller: VectorCaller, collection: string): Promise<number> {
  const res = await vcall<{ result: { count: number } }>(
    server,
    'POST',
    path(collection, '/points/count'),
    { key: caller.key, body: { exact: true } },
  );
  expect(res.status).toBe(200);
  return res.body.result.count;
}

function expectStorageLimit(res: { status: number; body: ErrorBody }): void {
  expect(res.status).toBe(429);
  expect(res.body.error).toEqual(
    expect.objectContaining({ code: 'STORAGE_LIMIT_EXCEEDED', field: 'storage_mb', max: CAP_MB }),
  );
  expect(res.body.error.retriable).toBeUndefined();
}

describe('storage cap', () => {
  test('refuses writes that add data once the cap is reached, and only those', async () => {
    const caller = await createVectorCaller(server);
    await createCollection(server, caller.key, 'full');
    // 20 points fit (about 1.8 KiB by the estimate); 40 more were stored before the plan's cap
    // was lowered to 2 KiB (written behind the gateway's back): the account is past its cap.
    expect((await upsert(caller, 'full', { points: points(20) })).status).toBe(200);
    const engineName = `t_live_${caller.accountId.replaceAll('-', '')}_full`;
    const stored = await fetch(`${server.engineUrl}/collections/${engineName}/points?wait=true`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'api-key': server.engineApiKey },
      body: JSON.stringify({ points: points(40, 20) }),
    });
    expect(stored.status).toBe(200);

    expectStorageLimit(await upsert(caller, 'full', { points: points(1, 100) }));
    expectStorageLimit(
      await vcall<ErrorBody>(server, 'POST', path('full', '/points/payload'), {
        key: caller.key,
        body: { payload: { more: 'data' }, points: [1] },
      }),
    );
    expectStorageLimit(
      await vcall<ErrorBody>(server, 'PUT', path('full', '/points/payload'), {
        key: caller.key,
        body: { payload: { more: 'data' }, points: [1] },
      }),
    );
    expectStorageLimit(
      await vcall<ErrorBody>(server, 'PUT', path('full', '/points/vectors'), {
        key: caller.key,
        body: { points: [{ id: 1, vector: [0, 0, 0, 1] }] },
      }),
    );
    expect(await count(caller, 'full')).toBe(60);

    // Reads and the ways out still work.
    const search = await vcall(server, 'POST', path('full', '/points/search'), {
      key: caller.key,
      body: { vector: [1, 1, 1, 1], limit: 3 },
    });
    expect(search.status).toBe(200);
    const cleared = await vcall(server, 'POST', path('full', '/points/payload/clear'), {
      key: caller.key,
      body: { points: [2] },
    });
    expect(cleared.status).toBe(200);
    const deleted = await vcall(server, 'POST', `${path('full', '/points/delete')}?wait=true`, {
      key: caller.key,
      body: { points: Array.from({ length: 55 }, (_, i) => i) },
    });
    expect(deleted.status).toBe(200);
    expect(await count(caller, 'full')).toBe(5);

    // Room again after freeing space.
    expect((await upsert(caller, 'full', { points: points(1, 100) })).status).toBe(200);
  });

  test('refuses a large upsert that would pass the cap before writing any batch', async () => {
    const caller = await createVectorCaller(server);
    await createCollection(server, caller.key, 'stream');
    // About 1 MB, so it reaches the gateway in many chunks and would be forwarded in many batches.
    const body = {
      points: points(5000).map((p) => ({ ...p, payload: { text: 'x'.repeat(150) } })),
    };
    expectStorageLimit(await upsert(caller, 'stream', body));
    // The whole body's estimate is checked once it has been read: no batch was written.
    expect(await count(caller, 'stream')).toBe(0);
  });

  test('counts every collection and environment of the account, and no other account', async () => {
    const live = await createVectorCaller(server);
    const testKey = await server.accounts.createKey({
      accountId: live.accountId,
      environment: 'test',
    });
    const sameAccountTest: VectorCaller = {
      accountId: live.accountId,
      key: testKey.text,
      environment: 'test',
    };
    const other = await createVectorCaller(server);
    await createCollection(server, live.key, 'a');
    await createCollection(server, sameAccountTest.key, 'b');
    await createCollection(server, other.key, 'a');

    // 20 points take about 1.8 KiB of the 2: five more fit in no collection of the account.
    expect((await upsert(live, 'a', { points: points(20) })).status).toBe(200);
    expectStorageLimit(await upsert(sameAccountTest, 'b', { points: points(5) }));
    expect((await upsert(other, 'a', { points: points(5) })).status).toBe(200);
  });
});
