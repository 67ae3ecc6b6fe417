/**
 * Scalar (int8) quantization over HTTP: the collection config Qdrant accepts (and the
 * variants this engine refuses), recall against exact search with and without rescoring,
 * and the same answers after a restart, where the codes are rebuilt from the vectors.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { call, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';
import { seededRandom } from '../../common/seeded-random.js';
import { waitFor } from '../harness/wait.js';

const DIM = 32;
const N = 3000;
const QUERIES = 30;
const ENV = { SVC_ENGINE_INDEX_THRESHOLD: '1000', SVC_ENGINE_INDEX_IDLE_MS: '100' };

let engine: EngineProcess;
const random = seededRandom(2024);
const centres = Array.from({ length: 100 }, () =>
  Array.from({ length: DIM }, () => random() * 2 - 1),
);
/** A point near one of a few centres, as embeddings cluster. */
const vector = (i: number) => centres[i % centres.length]!.map((c) => c + (random() - 0.5) * 0.8);
const queries = Array.from({ length: QUERIES }, (_, i) => vector(i * 7 + 3));

type Hit = { id: number; score: number };

async function search(body: Record<string, unknown>): Promise<Hit[]> {
  const res = await call(engine.url, 'POST', '/collections/q/points/search', {
    limit: 10,
    ...body,
  });
  expect(res.status).toBe(200);
  return res.body.result as Hit[];
}

/** Waits until the engine reports every point in the graph and no build running (green). */
async function waitIndexed(): Promise<void> {
  let info: Record<string, unknown> | undefined;
  await waitFor(
    `collection q green with all ${N} vectors indexed`,
    async () => {
      const { status, indexed_vectors_count, points_count } = (
        await call(engine.url, 'GET', '/collections/q')
      ).body.result as Record<string, unknown>;
      info = { status, indexed_vectors_count, points_count };
      return status === 'green' && indexed_vectors_count === N;
    },
    { lastSeen: () => info },
  );
}

/** Every query's hits: default params (rescored), not rescored, ignored, oversampled. */
async function answers(): Promise<Record<string, Hit[][]>> {
  const modes: Record<string, Record<string, unknown>> = {
    rescored: {},
    raw: { params: { quantization: { rescore: false } } },
    ignored: { params: { quantization: { ignore: true } } },
    oversampled: { params: { quantization: { rescore: true, oversampling: 3 } } },
  };
  const out: Record<string, Hit[][]> = {};
  for (const [mode, extra] of Object.entries(modes)) {
    out[mode] = [];
    for (const query of queries) out[mode].push(await search({ vector: query, ...extra }));
  }
  return out;
}

beforeAll(async () => {
  engine = await startEngine({ env: ENV });
  const res = await call(engine.url, 'PUT', '/collections/q', {
    vectors: { size: DIM, distance: 'Cosine' },
    quantization_config: { scalar: { type: 'int8', quantile: 0.99, always_ram: true } },
  });
  expect(res.status).toBe(200);
  // One write, so the graph and the codes come from one build, as after a restart.
  const points = Array.from({ length: N }, (_, id) => ({ id, vector: vector(id) }));
  await call(engine.url, 'PUT', '/collections/q/points?wait=true', { points });
  await waitIndexed();
});
afterAll(async () => {
  await engine.dispose();
});

test.each([
  [{ product: { compression: 'x4' } }, 400, 'quantization_config.product'],
  [{ binary: { always_ram: true } }, 400, 'quantization_config.binary'],
  [{ scalar: { type: 'int4' } }, 400, 'unknown variant `int4`'],
  [{ scalar: {} }, 400, 'missing field `type`'],
  [{ scalar: { type: 'int8', quantile: 0.3 } }, 422, 'quantile'],
  [{ scalar: { type: 'int8', bits: 8 } }, 400, 'bits'],
  [{ scalar: { type: 'int8' }, binary: {} }, 400, 'untagged enum QuantizationConfig'],
])('refuses quantization_config %j with %i', async (config, status, message) => {
  const res = await call(engine.url, 'PUT', '/collections/refused', {
    vectors: { size: 4, distance: 'Dot' },
    quantization_config: config,
  });
  expect(res.status).toBe(status);
  expect(JSON.stringify(res.body)).toContain(message);
  expect((await call(engine.url, 'GET', '/collections/refused/exists')).body.result).toEqual({
    exists: false,
  });
});

test('refuses oversampling below 1 with 422', async () => {
  const res = await call(engine.url, 'POST', '/collections/q/points/search', {
    vector: queries[0],
    limit: 10,
    params: { quantization: { oversampling: 0.5 } },
  });
  expect(res.status).toBe(422);
});

test('collection info reports the quantization config as created', async () => {
  const info = (await call(engine.url, 'GET', '/collections/q')).body.result as {
    config: { quantization_config: unknown };
  };
  expect(info.config.quantization_config).toEqual({
    scalar: { type: 'int8', quantile: 0.99, always_ram: true },
  });
});

test('quantized search finds at least 90% of the exact top 10, rescored or not', async () => {
  const found = await answers();
  const exact: Set<number>[] = [];
  for (const query of queries) {
    exact.push(
      new Set((await search({ vector: query, params: { exact: true } })).map((h) => h.id)),
    );
  }
  const recall = (mode: string) => {
    let hits = 0;
    found[mode]!.forEach((hits10, q) => (hits += hits10.filter((h) => exact[q]!.has(h.id)).length));
    return hits / (QUERIES * 10);
  };
  expect(recall('rescored')).toBeGreaterThanOrEqual(0.9);
  expect(recall('raw')).toBeGreaterThanOrEqual(0.9);
  expect(recall('ignored')).toBeGreaterThanOrEqual(0.9);
  expect(recall('oversampled')).toBeGreaterThanOrEqual(recall('rescored'));
});

test('rescored hits carry the exact scores; raw hits the quantized ones', async () => {
  const query = queries[0]!;
  const rescored = await search({ vector: query });
  const raw = await search({ vector: query, params: { quantization: { rescore: false } } });
  const ids = rescored.map((h) => h.id);
  const exact = await search({ vector: query, params: { exact: true }, limit: N });
  const exactScore = new Map(exact.map((h) => [h.id, h.score]));
  for (const hit of rescored) expect(hit.score).toBeCloseTo(exactScore.get(hit.id)!, 5);
  // Quantized scores differ from the exact ones, by little.
  const shared = raw.filter((h) => ids.includes(h.id));
  expect(shared.some((h) => Math.abs(h.score - exactScore.get(h.id)!) > 1e-6)).toBe(true);
  for (const hit of shared)
    expect(Math.abs(hit.score - exactScore.get(hit.id)!)).toBeLessThan(0.05);
});

test('a restart keeps the config and answers every search the same', async () => {
  const before = await answers();
  await engine.stop();
  engine = await startEngine({ dataDir: engine.dataDir, env: ENV });
  await waitIndexed();
  const info = (await call(engine.url, 'GET', '/collections/q')).body.result as {
    config: { quantization_config: unknown };
  };
  expect(info.config.quantization_config).toEqual({
    scalar: { type: 'int8', quantile: 0.99, always_ram: true },
  });
  expect(await answers()).toEqual(before);
});
