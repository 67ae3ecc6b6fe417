/**
 * The engine through the official Qdrant JavaScript client (@qdrant/js-client-rest 1.16),
 * the way an application would use Qdrant: every call the vector gateway forwards.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { QdrantClient } from '@qdrant/js-client-rest';
import { startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

let engine: EngineProcess;
let client: QdrantClient;

beforeAll(async () => {
  engine = await startEngine();
  // The key as a header: the client's `apiKey` option warns on every plain-HTTP connection.
  client = new QdrantClient({
    url: engine.url,
    headers: { 'api-key': engine.apiKey },
    checkCompatibility: true,
  });
});
afterAll(async () => {
  await engine.dispose();
});

test('is refused with 401 without the engine key', async () => {
  const keyless = new QdrantClient({ url: engine.url, checkCompatibility: false });
  await expect(keyless.getCollections()).rejects.toMatchObject({ status: 401 });
});

test('runs a collection through its whole life with the official client', async () => {
  expect(await client.createCollection('books', { vectors: { size: 3, distance: 'Cosine' } })).toBe(
    true,
  );
  expect(await client.collectionExists('books')).toEqual({ exists: true });
  await expect(
    client.createCollection('books', { vectors: { size: 3, distance: 'Cosine' } }),
  ).rejects.toMatchObject({ status: 409 });

  const upsert = await client.upsert('books', {
    wait: true,
    points: [
      { id: 1, vector: [1, 0, 0], payload: { title: 'Dune', year: 1965, tags: ['sf'] } },
      { id: 2, vector: [0, 1, 0], payload: { title: 'Emma', year: 1815, tags: ['romance'] } },
      {
        id: 'a0b1c2d3-0000-4000-8000-000000000003',
        vector: [0.9, 0.1, 0],
        payload: { title: 'Solaris', year: 1961 },
      },
    ],
  });
  expect(upsert.status).toBe('completed');

  const hits = await client.search('books', { vector: [1, 0, 0], limit: 2, with_payload: true });
  expect(hits.map((h) => h.id)).toEqual([1, 'a0b1c2d3-0000-4000-8000-000000000003']);
  expect(hits[0]!.score).toBeCloseTo(1, 5);

  const query = await client.query('books', {
    query: [0, 1, 0],
    filter: { must: [{ key: 'year', range: { lt: 1900 } }] },
    limit: 5,
  });
  expect(query.points.map((p) => p.id)).toEqual([2]);

  const [batchA, batchB] = await client.searchBatch('books', {
    searches: [
      { vector: [1, 0, 0], limit: 1 },
      { vector: [0, 1, 0], limit: 1 },
    ],
  });
  expect([batchA![0]!.id, batchB![0]!.id]).toEqual([1, 2]);

  await client.setPayload('books', { points: [2], payload: { read: true }, wait: true });
  await client.deletePayload('books', { points: [2], keys: ['tags'], wait: true });
  const [emma] = await client.retrieve('books', { ids: [2], with_payload: true });
  expect(emma!.payload).toEqual({ title: 'Emma', year: 1815, read: true });

  await client.overwritePayload('books', { points: [2], payload: { title: 'Emma' }, wait: true });
  await client.clearPayload('books', { points: [1], wait: true });
  await client.updateVectors('books', { points: [{ id: 1, vector: [0, 0, 1] }], wait: true });
  const [dune] = await client.retrieve('books', {
    ids: [1],
    with_payload: true,
    with_vector: true,
  });
  expect(dune).toMatchObject({ id: 1, payload: {}, vector: [0, 0, 1] });

  await client.createPayloadIndex('books', {
    field_name: 'year',
    field_schema: 'integer',
    wait: true,
  });
  const ordered = await client.scroll('books', {
    order_by: { key: 'year', direction: 'desc' },
    limit: 10,
  });
  expect(ordered.points.map((p) => p.id)).toEqual(['a0b1c2d3-0000-4000-8000-000000000003']);
  await client.deletePayloadIndex('books', 'year', { wait: true });

  const page = await client.scroll('books', { limit: 1 });
  expect(page.next_page_offset).toBe(2);
  expect((await client.count('books', { exact: true })).count).toBe(3);

  await client.delete('books', {
    filter: { must: [{ key: 'title', match: { value: 'Emma' } }] },
    wait: true,
  });
  expect((await client.count('books')).count).toBe(2);
  const info = await client.getCollection('books');
  expect(info.points_count).toBe(2);
  expect((await client.getCollections()).collections).toEqual([{ name: 'books' }]);
  expect(await client.deleteCollection('books')).toBe(true);
});

test('surfaces Qdrant errors through the client', async () => {
  await expect(client.getCollection('missing')).rejects.toMatchObject({ status: 404 });
  await client.createCollection('small', { vectors: { size: 2, distance: 'Dot' } });
  await expect(
    client.upsert('small', { wait: true, points: [{ id: 1, vector: [1, 2, 3] }] }),
  ).rejects.toMatchObject({ status: 400 });
});
