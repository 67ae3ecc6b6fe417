/**
 * A streamed upsert is all or nothing for every refusal the gateway can
 * foresee: a vector the collection cannot hold (wrong dimension, a name it
 * does not have, a sparse vector, a component that is not a finite 32-bit
 * float) anywhere in a body of several batches, and a
 * body whose size would pass the plan's storage cap, are refused before the
 * first batch reaches the engine. Through the real gateway and engine, with
 * each body sent in two pieces so the gateway has full batches in hand
 * before it reads the point that is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { BodyReads } from './streamed-body.js';
import {
  createCollection,
  createVectorCaller,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

// 1 MiB: a body of 2,500 small points (about 0.2 MB by the estimate) fits, one of 10,000 points
// with 150-byte payloads (about 2 MB) does not.
const CAP_MB = 1;

let server: VectorServer;
const reads = new BodyReads();

type Point = { id: number; vector: unknown; payload?: Record<string, unknown> };

const vec = (i: number) => [1, i % 7, (i * 3) % 5, 0.5];
const points = (n: number, from = 0, payload: Record<string, unknown> = {}): Point[] =>
  Array.from({ length: n }, (_, k) => ({ id: from + k, vector: vec(from + k), payload }));

const path = (collection: string, rest = '') => `/api/v1/collections/${collection}${rest}`;

beforeAll(async () => {
  server = await startVectorServer({
    plansJson: JSON.stringify({ starter: { vectorStorageMb: CAP_MB } }),
    storageTtlMs: 0,
    upsert: { onBodyRead: reads.onBodyRead },
  });
});
afterAll(async () => {
  await server?.close();
});

/**
 * Upserts `{"points": [...]}` in two pieces: the first 1,100 points (a full
 * batch), then, once the gateway has read them, the rest. `rawVector`, when
 * given, replaces the vector of the point at that index with text sent as is.
 */
function upsertInTwoPieces(
  caller: VectorCaller,
  collection: string,
  all: Point[],
  rawVector?: { index: number; text: string },
): Promise<{ status: number; body: ErrorBody }> {
  const json = (list: Point[], from: number) =>
    list
      .map((p, k) => {
        const text = JSON.stringify(p);
        if (from + k !== rawVector?.index) return text;
        return text.replace(JSON.stringify(p.vector), rawVector.text);
      })
      .join(',');
  const pieces = [
    `{"points":[${json(all.slice(0, 1_100), 0)},`,
    `${json(all.slice(1_100), 1_100)}]}`,
  ];
  return reads.send(server.base, caller.key, collection, pieces);
}

/** The exact number of points in `collection`. */
async function countIn(caller: VectorCaller, collection: string): Promise<number> {
  const res = await vcall<{ result: { count: number } }>(
    server,
    'POST',
    path(collection, '/points/count'),
    { key: caller.key, body: { exact: true } },
  );
  expect(res.status).toBe(200);
  return res.body.result.count;
}

/** A caller with a collection `name` of 4-d vectors holding ten points. */
async function seeded(name: string): Promise<VectorCaller> {
  const caller = await createVectorCaller(server);
  await createCollection(server, caller.key, name);
  const res = await vcall(server, 'PUT', `${path(name, '/points')}?wait=true`, {
    key: caller.key,
    body: { points: points(10, 100_000) },
  });
  expect(res.status).toBe(200);
  return caller;
}

describe('a streamed upsert of 2,500 points with one vector the collection cannot hold', () => {
  test('returns 400 for point 2,400 of the wrong dimension and writes no point', async () => {
    const caller = await seeded('wrong-dim');
    const body = points(2_500);
    body[2_399]!.vector = [1, 2, 3];
    const res = await upsertInTwoPieces(caller, 'wrong-dim', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        message: 'Wrong input: Vector dimension error: expected dim: 4, got 3',
        field: 'points[2399].vector',
      }),
    );
    expect(await countIn(caller, 'wrong-dim')).toBe(10);
  });

  test.each([
    ['a named vector the collection does not have', { image: [1, 2, 3, 4] }, 'image'],
    ['a sparse vector', { text: { indices: [1, 7], values: [0.5, 0.25] } }, 'text'],
  ])('returns 400 for %s and writes no point', async (_, vector, name) => {
    const caller = await seeded('unknown-name');
    const body = points(2_500);
    body[2_399]!.vector = vector;
    const res = await upsertInTwoPieces(caller, 'unknown-name', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        message: `Wrong input: Not existing vector name error: ${name}`,
      }),
    );
    expect(await countIn(caller, 'unknown-name')).toBe(10);
  });

  test.each([
    ['a component beyond a 32-bit float', '[1, 2, 1e39, 4]'],
    ['a component that is not a number (a NaN written as null)', '[1, 2, null, 4]'],
    ['a NaN written as Python writes it', '[1, 2, NaN, 4]'],
  ])('returns 400 for %s and writes no point', async (_, text) => {
    const caller = await seeded('bad-number');
    const res = await upsertInTwoPieces(caller, 'bad-number', points(2_500), {
      index: 2_399,
      text,
    });
    expect(res.status).toBe(400);
    expect(await countIn(caller, 'bad-number')).toBe(10);
  });

  test('accepts every form of the unnamed vector the engine takes, spaced or not', async () => {
    const caller = await seeded('forms');
    const body = points(2_500);
    body[5]!.vector = { '': [1, 2, 3, 4] };
    body[1_500]!.vector = [-0.0, 1e-7, 3.4e38, -2e-300];
    const res = await upsertInTwoPieces(caller, 'forms', body, {
      index: 2_400,
      text: '[ 1 ,\n 2.5E+1 , -3e-2,4 ]',
    });
    expect(res.status).toBe(200);
    expect(await countIn(caller, 'forms')).toBe(2_510);
  });
});

describe('a streamed upsert that would pass the storage cap', () => {
  test('returns 429 STORAGE_LIMIT_EXCEEDED and writes no point', async () => {
    const caller = await createVectorCaller(server);
    await createCollection(server, caller.key, 'over-quota');
    const body = points(10_000, 0, { text: 'x'.repeat(150) });
    const res = await upsertInTwoPieces(caller, 'over-quota', body);
    expect(res.status).toBe(429);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'STORAGE_LIMIT_EXCEEDED', field: 'storage_mb', max: CAP_MB }),
    );
    expect(await countIn(caller, 'over-quota')).toBe(0);
  });

  test('writes a body that fits in the room left', async () => {
    const caller = await createVectorCaller(server);
    await createCollection(server, caller.key, 'fits');
    const res = await upsertInTwoPieces(caller, 'fits', points(2_500));
    expect(res.status).toBe(200);
    expect(await countIn(caller, 'fits')).toBe(2_500);
  });
});
