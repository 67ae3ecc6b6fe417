/**
 * The official `@qdrant/js-client-rest`, pointed at the gateway with its own
 * key option (`apiKey`, sent as an `api-key` header) and `prefix: '/api/v1'`,
 * works unchanged for the collection calls (exists, get, delete), upsert,
 * search (with query-time quantization params), query, retrieve, scroll,
 * count, point delete, the payload calls (set, overwrite, delete keys, clear)
 * and payload indexes. Creation is the service's `POST
 * /api/v1/collections`: the client's own create is the engine-native `PUT
 * /collections/{name}`, which the contract answers 405 METHOD_NOT_ALLOWED.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { QdrantClient } from '@qdrant/js-client-rest';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let caller: VectorCaller;
let client: QdrantClient;

beforeAll(async () => {
  server = await startVectorServer();
  caller = await createVectorCaller(server);
  client = new QdrantClient({
    url: server.base,
    prefix: '/api/v1',
    apiKey: caller.key,
    checkCompatibility: false,
  });
});
afterAll(async () => {
  await server?.close();
});

describe('@qdrant/js-client-rest against the gateway', () => {
  test('is refused with 405 on the engine-native create', async () => {
    await expect(
      client.createCollection('native', { vectors: { size: 4, distance: 'Cosine' } }),
    ).rejects.toMatchObject({ status: 405 });
  });

  test('works with a bearer header instead of the key option', async () => {
    const bearer = new QdrantClient({
      url: server.base,
      prefix: '/api/v1',
      headers: { authorization: `Bearer ${caller.key}` },
      checkCompatibility: false,
    });
    expect(await bearer.getCollections()).toEqual({ collections: expect.any(Array) });
  });

  test('checks existence, reads a collection as Qdrant describes one, and deletes a missing one as false', async () => {
    expect(await client.collectionExists('described')).toEqual({ exists: false });
    await createCollection(server, caller.key, 'described', 6);
    expect(await client.collectionExists('described')).toEqual({ exists: true });
    const info = await client.getCollection('described');
    expect(info.status).toBe('green');
    expect(info.config.params.vectors).toEqual({ size: 6, distance: 'Cosine' });
    expect(info.points_count).toBe(0);
    expect((await client.getCollections()).collections).toContainEqual(
      expect.objectContaining({ name: 'described' }),
    );
    expect(await client.deleteCollection('described')).toBe(true);
    expect(await client.deleteCollection('described')).toBe(false);
  });

  test('creates (through POST), upserts, searches, scrolls, counts and deletes', async () => {
    await createCollection(server, caller.key, 'client');
    const points = Array.from({ length: 30 }, (_, i) => ({
      id: i,
      vector: [1, i, i % 3, 0.5],
      payload: { group: i % 2 === 0 ? 'even' : 'odd' },
    }));
    const upserted = await client.upsert('client', { wait: true, points });
    expect(upserted.status).toBe('completed');

    const hits = await client.search('client', {
      vector: [1, 4, 1, 0.5],
      limit: 3,
      filter: { must: [{ key: 'group', match: { value: 'even' } }] },
    });
    expect(hits).toHaveLength(3);
    expect(hits.every((h) => h.payload?.group === 'even')).toBe(true);
    expect(hits[0]!.payload).toEqual(expect.objectContaining({ __svc_agent_id: null }));

    const page = await client.scroll('client', { limit: 10, with_payload: true });
    expect(page.points).toHaveLength(10);
    expect(page.next_page_offset).toBe(10);

    expect((await client.count('client', { exact: true })).count).toBe(30);

    await client.delete('client', {
      wait: true,
      filter: { must: [{ key: 'group', match: { value: 'odd' } }] },
    });
    expect((await client.count('client', { exact: true })).count).toBe(15);

    expect(await client.deleteCollection('client')).toBe(true);
    await expect(client.count('client', { exact: true })).rejects.toMatchObject({ status: 404 });
  });

  test('queries with quantization params, indexes a payload field and edits payloads, keeping the attested keys', async () => {
    await createCollection(server, caller.key, 'edits');
    const points = Array.from({ length: 12 }, (_, i) => ({
      id: i + 1,
      vector: [1, i, i % 4, 0.25],
      payload: { n: i, tag: 'old' },
    }));
    expect((await client.upsert('edits', { wait: true, points })).status).toBe('completed');
    const indexed = await client.createPayloadIndex('edits', {
      wait: true,
      field_name: 'n',
      field_schema: 'integer',
    });
    expect(indexed.status).toBe('completed');

    const quantization = { ignore: false, rescore: true, oversampling: 2 };
    const searched = await client.search('edits', {
      vector: [1, 5, 1, 0.25],
      limit: 3,
      params: { hnsw_ef: 32, quantization },
      filter: { must: [{ key: 'n', range: { gte: 3 } }] },
    });
    expect(searched.map((h) => h.id)).toEqual([6, expect.any(Number), expect.any(Number)]);
    expect(searched.every((h) => (h.payload?.n as number) >= 3)).toBe(true);
    const queried = await client.query('edits', {
      query: [1, 5, 1, 0.25],
      limit: 2,
      params: { quantization },
      with_payload: true,
    });
    expect(queried.points.map((p) => p.id)).toEqual([6, expect.any(Number)]);
    const batch = await client.queryBatch('edits', {
      searches: [
        { query: [1, 0, 0, 0.25], limit: 1 },
        { query: [1, 11, 3, 0.25], limit: 1 },
      ],
    });
    expect(batch.map((r) => r.points[0]?.id)).toEqual([1, 12]);

    const attested = { __svc_agent_id: null, __svc_deployment_id: null };
    const read = async (id: number) =>
      (await client.retrieve('edits', { ids: [id], with_payload: true }))[0]?.payload;
    await client.setPayload('edits', {
      wait: true,
      payload: { tag: 'new', extra: 1 },
      points: [1],
    });
    expect(await read(1)).toEqual({ n: 0, tag: 'new', extra: 1, ...attested });
    await client.deletePayload('edits', { wait: true, keys: ['extra'], points: [1] });
    expect(await read(1)).toEqual({ n: 0, tag: 'new', ...attested });
    await client.overwritePayload('edits', { wait: true, payload: { only: true }, points: [2] });
    expect(await read(2)).toEqual({ only: true, ...attested });
    await client.clearPayload('edits', { wait: true, points: [3] });
    expect(await read(3)).toEqual(attested);

    await client.delete('edits', { wait: true, points: [4, 5] });
    expect((await client.count('edits', { exact: true })).count).toBe(10);
    expect(
      (
        await client.count('edits', {
          exact: true,
          filter: { must: [{ key: 'n', range: { lt: 6 } }] },
        })
      ).count,
    ).toBe(2); // ids 1 and 6: 2 and 3 lost n, 4 and 5 are gone
  });

  test('recreateCollection deletes the collection, then is refused with 405 on the engine-native create', async () => {
    await createCollection(server, caller.key, 'recreated');
    await expect(
      client.recreateCollection('recreated', { vectors: { size: 4, distance: 'Cosine' } }),
    ).rejects.toMatchObject({ status: 405 });
    expect(await client.collectionExists('recreated')).toEqual({ exists: false });
  });
});
