/**
 * The approximate index over HTTP: with a low threshold the engine builds an HNSW graph
 * in a worker, reports yellow while it does, and then answers searches with high recall
 * against exact search, filtered searches included.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';
import { seededRandom } from '../../common/seeded-random.js';
import { waitFor } from '../harness/wait.js';

let engine: EngineProcess;
const DIM = 16;
const N = 4000;
const random = seededRandom(12345);
const vector = () => Array.from({ length: DIM }, () => random() * 2 - 1);

type Info = { status: string; indexed_vectors_count: number; points_count: number };

/**
 * Waits until the engine reports collection `name` green (no build running) with `count`
 * vectors in its graph; resolves with that collection info.
 */
async function waitIndexed(name: string, count: number, timeoutMs = 30_000): Promise<Info> {
  let seen: Info | undefined;
  return waitFor(
    `collection ${name} green with all ${count} vectors indexed`,
    async () => {
      const { status, indexed_vectors_count, points_count } = (
        await call(engine.url, 'GET', `/collections/${name}`)
      ).body.result as Info;
      seen = { status, indexed_vectors_count, points_count };
      return status === 'green' && indexed_vectors_count === count && seen;
    },
    { timeoutMs, lastSeen: () => seen },
  );
}

beforeAll(async () => {
  engine = await startEngine({
    env: { SVC_ENGINE_INDEX_THRESHOLD: '1000', SVC_ENGINE_INDEX_IDLE_MS: '100' },
  });
  await call(engine.url, 'PUT', '/collections/v', { vectors: { size: DIM, distance: 'Euclid' } });
  for (let start = 0; start < N; start += 1000) {
    const points = Array.from({ length: 1000 }, (_, i) => ({
      id: start + i,
      vector: vector(),
      payload: { even: (start + i) % 2 === 0 },
    }));
    await call(engine.url, 'PUT', '/collections/v/points?wait=true', { points });
  }
  await waitIndexed('v', N);
});
afterAll(async () => {
  await engine.dispose();
});

async function ids(body: Record<string, unknown>): Promise<number[]> {
  const res = await call(engine.url, 'POST', '/collections/v/points/search', body);
  return (res.body.result as { id: number }[]).map((p) => p.id);
}

test('approximate search finds at least 90% of the exact top 10', async () => {
  let hits = 0;
  for (let q = 0; q < 30; q++) {
    const query = vector();
    const exact = new Set(await ids({ vector: query, limit: 10, params: { exact: true } }));
    hits += (await ids({ vector: query, limit: 10 })).filter((id) => exact.has(id)).length;
  }
  expect(hits / 300).toBeGreaterThanOrEqual(0.9);
});

test('a filtered approximate search returns only matching points', async () => {
  const found = await ids({
    vector: vector(),
    limit: 20,
    filter: { must: [{ key: 'even', match: { value: true } }] },
  });
  expect(found).toHaveLength(20);
  expect(found.every((id) => id % 2 === 0)).toBe(true);
});

test('points written after the build are found before the next one', async () => {
  await call(engine.url, 'PUT', '/collections/v/points?wait=true', {
    points: [{ id: 999_999, vector: Array.from({ length: DIM }, () => 5) }],
  });
  expect(await ids({ vector: Array.from({ length: DIM }, () => 5), limit: 1 })).toEqual([999_999]);
});

test('a tail written while the index builds is indexed once writes go quiet', async () => {
  await call(engine.url, 'PUT', '/collections/t', { vectors: { size: DIM, distance: 'Euclid' } });
  const points = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: from + i, vector: vector() }));
  // Past the threshold: a build of every point starts in the worker.
  await call(engine.url, 'PUT', '/collections/t/points?wait=true', { points: points(0, 6000) });
  // A small tail while it runs; the quiet-time build it schedules fires during that build.
  await call(engine.url, 'PUT', '/collections/t/points?wait=true', { points: points(6000, 50) });
  const info = await waitIndexed('t', 6050, 20_000);
  expect(info).toEqual(
    expect.objectContaining({ status: 'green', points_count: 6050, indexed_vectors_count: 6050 }),
  );
}, 30_000);
