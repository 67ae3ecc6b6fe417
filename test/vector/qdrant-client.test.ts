/**
 * The official `@qdrant/js-client-rest`, pointed at the gateway with its own
 * key option (`apiKey`, sent as an `api-key` header) and `prefix: '/api/v1'`,
 * works unchanged for the collection calls (exists, get, delete), upsert,
 * search, scroll, count and point delete. Creation is the service's `POST
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
});
