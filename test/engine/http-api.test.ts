/**
 * The engine's REST surface over HTTP: its API key, Qdrant's envelopes and status codes
 * for the collection and point routes, against a real engine process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateSecret } from '../../common/secrets.js';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';

let engine: EngineProcess;
const api = (method: string, path: string, body?: unknown) => call(engine.url, method, path, body);

beforeAll(async () => {
  engine = await startEngine();
});
afterAll(async () => {
  await engine.dispose();
});

describe('API key', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/'],
    ['GET', '/collections'],
    ['PUT', '/collections/locked', { vectors: { size: 2, distance: 'Dot' } }],
    ['POST', '/collections/locked/points/scroll', {}],
    ['DELETE', '/collections/locked'],
  ];

  test('returns 401 without a key, with a wrong one, or with one in another scheme', async () => {
    const refusals: Array<[Record<string, string>, string]> = [
      [{}, 'Must provide an API key or an Authorization bearer token'],
      [{ 'api-key': generateSecret() }, 'Invalid API key or JWT'],
      [{ 'api-key': '' }, 'Invalid API key or JWT'],
      [{ authorization: `Bearer ${generateSecret()}` }, 'Invalid API key or JWT'],
      [
        { authorization: `Basic ${engine.apiKey}` },
        'Must provide an API key or an Authorization bearer token',
      ],
    ];
    for (const [method, path, body] of routes) {
      for (const [headers, error] of refusals) {
        const res = await fetch(engine.url + path, {
          method,
          headers: { 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect([method, path, headers, res.status]).toEqual([method, path, headers, 401]);
        expect(await res.json()).toEqual({ status: { error }, time: expect.any(Number) });
      }
    }
    expect((await api('GET', '/collections/locked/exists')).body.result).toEqual({ exists: false });
  });

  test('accepts the key in the api-key header or as a bearer token', async () => {
    const keyed: Array<Record<string, string>> = [
      { 'api-key': engine.apiKey },
      { authorization: `Bearer ${engine.apiKey}` },
    ];
    for (const headers of keyed) {
      const res = await fetch(`${engine.url}/collections`, { headers });
      expect(res.status).toBe(200);
    }
  });

  test('leaves the health checks open, as Qdrant does', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await fetch(engine.url + path);
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  test('refuses to start without a key, or with a guessable one', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-engine-refused-'));
    try {
      await expect(startEngine({ dataDir, env: { SVC_ENGINE_API_KEY: '' } })).rejects.toThrow(
        /engine: refusing to start: SVC_ENGINE_API_KEY is not set/,
      );
      await expect(startEngine({ dataDir, apiKey: 'changeme' })).rejects.toThrow(
        /SVC_ENGINE_API_KEY contains the well-known value "changeme"/,
      );
      await expect(startEngine({ dataDir, apiKey: 'short-but-random-x9Q' })).rejects.toThrow(
        /SVC_ENGINE_API_KEY is 20 characters long/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('envelopes', () => {
  test('a success is {result, status: "ok", time}', async () => {
    const res = await api('GET', '/collections');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(typeof res.body.time).toBe('number');
    expect(res.body.result).toEqual({ collections: expect.any(Array) });
  });

  test('an error is {status: {error}, time}', async () => {
    const res = await api('GET', '/collections/nope');
    expect(res.status).toBe(404);
    expect(res.body.status).toEqual({ error: "Not found: Collection `nope` doesn't exist!" });
    expect(res.body.result).toBeUndefined();
  });

  test('GET / names a Qdrant version clients accept', async () => {
    const res = await api('GET', '/');
    expect(res.body).toEqual({
      title: 'qdrant - vector search engine',
      version: expect.stringMatching(/^1\.16\./),
    });
  });
});

describe('collections', () => {
  test('returns 422 for a vector size of 0 and 400 for an unknown distance', async () => {
    expect(
      (await api('PUT', '/collections/bad', { vectors: { size: 0, distance: 'Dot' } })).status,
    ).toBe(422);
    expect(
      (await api('PUT', '/collections/bad', { vectors: { size: 4, distance: 'cosine' } })).status,
    ).toBe(400);
  });

  test('returns 400 for a body that is not JSON', async () => {
    const res = await fetch(`${engine.url}/collections/bad`, {
      method: 'PUT',
      headers: { 'api-key': engine.apiKey },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { status: { error: string } }).status.error).toMatch(
      /Format error/,
    );
  });

  test('creates, reports, lists, refuses a second create with 409, and deletes', async () => {
    expect(
      (await api('PUT', '/collections/c1', { vectors: { size: 3, distance: 'Euclid' } })).body
        .result,
    ).toBe(true);
    expect(
      (await api('PUT', '/collections/c1', { vectors: { size: 3, distance: 'Euclid' } })).status,
    ).toBe(409);
    const info = (await api('GET', '/collections/c1')).body.result as Record<string, unknown>;
    expect(info).toMatchObject({
      status: 'green',
      points_count: 0,
      config: { params: { vectors: { size: 3, distance: 'Euclid' } } },
      payload_schema: {},
    });
    expect((await api('GET', '/collections/c1/exists')).body.result).toEqual({ exists: true });
    expect((await api('GET', '/collections')).body.result).toEqual({
      collections: [{ name: 'c1' }],
    });
    expect((await api('DELETE', '/collections/c1')).body.result).toBe(true);
    expect((await api('DELETE', '/collections/c1')).body.result).toBe(false);
    expect((await api('GET', '/collections/c1/exists')).body.result).toEqual({ exists: false });
  });
});

describe('points', () => {
  beforeAll(async () => {
    await api('PUT', '/collections/p', { vectors: { size: 2, distance: 'Dot' } });
    await api('PUT', '/collections/p/points?wait=true', {
      points: [
        { id: 1, vector: [1, 0], payload: { color: 'red', n: 1 } },
        { id: '550E8400-E29B-41D4-A716-446655440000', vector: [0, 1], payload: { color: 'blue' } },
      ],
    });
  });

  test('returns 404 for a missing collection and 400 for a wrong dimension', async () => {
    expect((await api('PUT', '/collections/none/points', { points: [] })).status).toBe(404);
    const res = await api('PUT', '/collections/p/points', {
      points: [{ id: 2, vector: [1, 2, 3] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.status).toEqual({
      error: 'Wrong input: Vector dimension error: expected dim: 2, got 3',
    });
  });

  test('returns 400 for an id that is neither an unsigned integer nor a UUID', async () => {
    expect(
      (await api('PUT', '/collections/p/points', { points: [{ id: -1, vector: [1, 2] }] })).status,
    ).toBe(400);
  });

  test('answers wait=true with completed and otherwise acknowledged', async () => {
    const waited = await api('PUT', '/collections/p/points?wait=true', {
      points: [{ id: 3, vector: [1, 1] }],
    });
    expect(waited.body.result).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    const unwaited = await api('POST', '/collections/p/points/delete', { points: [3] });
    expect(unwaited.body.result).toMatchObject({ status: 'acknowledged' });
  });

  test('returns a UUID id normalised, and 404 for a missing point', async () => {
    const res = await api('GET', '/collections/p/points/550e8400e29b41d4a716446655440000');
    expect(res.body.result).toEqual({
      id: '550e8400-e29b-41d4-a716-446655440000',
      payload: { color: 'blue' },
      vector: [0, 1],
    });
    expect((await api('GET', '/collections/p/points/99')).status).toBe(404);
  });

  test('searches, queries, scrolls and counts with a filter', async () => {
    const filter = { must: [{ key: 'color', match: { value: 'red' } }] };
    const search = await api('POST', '/collections/p/points/search', {
      vector: [1, 1],
      limit: 5,
      filter,
    });
    expect(search.body.result).toEqual([
      { id: 1, version: expect.any(Number), score: 1, payload: null, vector: null },
    ]);
    const query = await api('POST', '/collections/p/points/query', {
      query: [1, 0],
      limit: 1,
      with_payload: true,
    });
    expect(query.body.result).toEqual({
      points: [expect.objectContaining({ id: 1, score: 1, payload: { color: 'red', n: 1 } })],
    });
    const scroll = await api('POST', '/collections/p/points/scroll', { limit: 1 });
    expect(scroll.body.result).toEqual({
      points: [{ id: 1, payload: { color: 'red', n: 1 }, vector: null }],
      next_page_offset: '550e8400-e29b-41d4-a716-446655440000',
    });
    expect(
      (await api('POST', '/collections/p/points/count', { filter, exact: true })).body.result,
    ).toEqual({ count: 1 });
  });

  test('returns 422 for a search limit of 0', async () => {
    expect(
      (await api('POST', '/collections/p/points/search', { vector: [1, 1], limit: 0 })).status,
    ).toBe(422);
  });

  test('sets payload at a nested key and reports 404 for a missing point after applying the rest', async () => {
    const res = await api('POST', '/collections/p/points/payload?wait=true', {
      payload: { deep: 1 },
      points: [1, 77],
      key: 'meta.inner',
    });
    expect(res.status).toBe(404);
    const point = await api('GET', '/collections/p/points/1');
    expect((point.body.result as { payload: unknown }).payload).toEqual({
      color: 'red',
      n: 1,
      meta: { inner: { deep: 1 } },
    });
  });

  test('order_by needs a range index: 400 before, ordered after', async () => {
    expect((await api('POST', '/collections/p/points/scroll', { order_by: 'n' })).status).toBe(400);
    await api('PUT', '/collections/p/index?wait=true', {
      field_name: 'n',
      field_schema: 'integer',
    });
    const scroll = await api('POST', '/collections/p/points/scroll', {
      order_by: { key: 'n', direction: 'desc' },
    });
    expect(scroll.body.result).toEqual({
      points: [expect.objectContaining({ id: 1, order_value: 1 })],
      next_page_offset: null,
    });
    const info = (await api('GET', '/collections/p')).body.result as { payload_schema: unknown };
    expect(info.payload_schema).toEqual({ n: { data_type: 'integer', points: 1 } });
  });
});
