/**
 * Quantized collections against qdrant-edge: the same `quantization_config.scalar` on both
 * sides, small random data on every distance, searches rescored with enough oversampling
 * and `hnsw_ef` that both answers are the exact top 10, compared id for id; `ignore: true`
 * and exact searches too. The engine indexes from 200 points, so its answers come from the
 * graph walk over int8 codes, then rescoring. Needs the venv: node hack/python/ensure-venv.mjs.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { call, startEngine } from '../support/engine-process.js';
import type { EngineProcess } from '../support/engine-process.js';
import { seededRandom } from '../../../common/seeded-random.js';
import { EdgeDriver } from './edge-driver.js';
import { waitFor } from '../../harness/wait.js';

const DIM = 24;
const POINTS = 600;
const SEARCHES = 25;

let engine: EngineProcess;
let driver: EdgeDriver;

beforeAll(async () => {
  [engine, driver] = await Promise.all([
    startEngine({ env: { SVC_ENGINE_INDEX_THRESHOLD: '200', SVC_ENGINE_INDEX_IDLE_MS: '50' } }),
    EdgeDriver.start(),
  ]);
});

afterAll(async () => {
  await Promise.all([engine?.dispose(), driver?.stop()]);
});

/** Waits until the engine reports `name` green (no build running) with every point in its graph. */
async function waitIndexed(name: string): Promise<void> {
  let info: Record<string, unknown> | undefined;
  await waitFor(
    `collection ${name} green with all ${POINTS} vectors indexed`,
    async () => {
      const { status, indexed_vectors_count, points_count } = (
        await call(engine.url, 'GET', `/collections/${name}`)
      ).body.result as Record<string, unknown>;
      info = { status, indexed_vectors_count, points_count };
      return status === 'green' && indexed_vectors_count === POINTS;
    },
    { lastSeen: () => info },
  );
}

test.each(['Cosine', 'Dot', 'Euclid', 'Manhattan'])(
  'a quantized %s collection answers rescored, ignored and exact searches like qdrant-edge',
  async (distance) => {
    const random = seededRandom(distance.length * 7919);
    const vector = () => Array.from({ length: DIM }, () => random() * 2 - 1);
    const name = `quantized_${distance.toLowerCase()}`;
    const created = await call(engine.url, 'PUT', `/collections/${name}`, {
      vectors: { size: DIM, distance },
      quantization_config: { scalar: { type: 'int8', quantile: 0.99, always_ram: true } },
    });
    expect(created.status).toBe(200);
    await driver.ok({
      cmd: 'create',
      name,
      size: DIM,
      distance,
      quantization: { quantile: 0.99, always_ram: true },
    });
    const points = Array.from({ length: POINTS }, (_, id) => ({ id, vector: vector() }));
    await call(engine.url, 'PUT', `/collections/${name}/points?wait=true`, { points });
    await driver.ok({ cmd: 'upsert', name, points });
    await waitIndexed(name);

    const variants = [
      { quantization: { rescore: true, oversampling: 4 }, hnsw_ef: 300 },
      { quantization: { ignore: true }, hnsw_ef: 300 },
      { quantization: { rescore: true }, exact: true },
    ];
    let compared = 0;
    for (let i = 0; i < SEARCHES; i++) {
      const query = vector();
      for (const params of variants) {
        const res = await call(engine.url, 'POST', `/collections/${name}/points/search`, {
          vector: query,
          limit: 10,
          params,
        });
        expect(res.status).toBe(200);
        const ours = (res.body.result as { id: number }[]).map((p) => p.id);
        const theirs = (
          (await driver.ok({
            cmd: 'search',
            name,
            vector: query,
            limit: 10,
            ...params,
          })) as { id: number }[]
        ).map((p) => p.id);
        expect({ params, ids: ours }).toEqual({ params, ids: theirs });
        compared++;
      }
    }
    expect(compared).toBe(SEARCHES * variants.length);
  },
  120_000,
);
