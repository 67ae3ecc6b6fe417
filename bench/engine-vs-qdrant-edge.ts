/**
 * The engine against qdrant-edge (Qdrant's Rust core, in-process in Python) on the same
 * random data in the same run: upsert throughput, exact and approximate search QPS and
 * p99 latency, recall@10 of each approximate index against its own exact search, index
 * build time and resident memory. Prints both sides and the engine/qdrant-edge ratios.
 *
 * The engine is measured over HTTP (JSON in and out, as the vector gateway uses it);
 * qdrant-edge's searches are timed inside Python, with no transport at all, and its
 * upserts as the driver round trip (JSON over a pipe). Needs the venv:
 * `node hack/python/ensure-venv.mjs`.
 *
 *   node --import tsx bench/engine-vs-qdrant-edge.ts [points=100000] [queries=200]
 */
import { readFileSync } from 'node:fs';
import { EdgeDriver } from '../test/engine/differential/edge-driver.js';
import { Prng } from '../test/engine/differential/prng.js';
import { call, startEngine } from '../test/engine/support/engine-process.js';

const POINTS = Number(process.argv[2] ?? 100_000);
const QUERIES = Number(process.argv[3] ?? 200);
const DIM = 128;
const K = 10;
const BATCH = 1000;

const rng = new Prng(42);
const vector = () => Array.from({ length: DIM }, () => Math.round(rng.float(-1, 1) * 1e4) / 1e4);
const data = Array.from({ length: POINTS }, vector);
const queries = Array.from({ length: QUERIES }, vector);

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function summary(latenciesMs: number[]) {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const total = latenciesMs.reduce((a, b) => a + b, 0);
  return {
    qps: (latenciesMs.length * 1000) / total,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
  };
}

function recall(approx: (number | string)[][], exact: (number | string)[][]): number {
  let hits = 0;
  approx.forEach((ids, i) => {
    const truth = new Set(exact[i]);
    hits += ids.filter((id) => truth.has(id)).length;
  });
  return hits / (approx.length * K);
}

interface Side {
  upsertPerSec: number;
  indexSeconds: number;
  exact: ReturnType<typeof summary>;
  approx: ReturnType<typeof summary>;
  recall: number;
  rssMiB: number;
}

async function benchEngine(): Promise<Side> {
  // Small runs lower the indexing threshold so they measure an index too.
  const threshold = String(Math.min(20_000, Math.floor(POINTS / 5)));
  const engine = await startEngine({ env: { SVC_ENGINE_INDEX_THRESHOLD: threshold } });
  try {
    await call(engine.url, 'PUT', '/collections/bench', {
      vectors: { size: DIM, distance: 'Cosine' },
    });
    let started = performance.now();
    for (let i = 0; i < POINTS; i += BATCH) {
      const points = data.slice(i, i + BATCH).map((v, j) => ({ id: i + j, vector: v }));
      const r = await call(engine.url, 'PUT', '/collections/bench/points?wait=true', { points });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    }
    const upsertPerSec = POINTS / ((performance.now() - started) / 1000);
    started = performance.now();
    for (;;) {
      const info = (await call(engine.url, 'GET', '/collections/bench')).body.result as {
        status: string;
        indexed_vectors_count: number;
        points_count: number;
      };
      if (info.status === 'green' && info.indexed_vectors_count === info.points_count) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const indexSeconds = (performance.now() - started) / 1000;
    const run = async (exact: boolean) => {
      const latencies: number[] = [];
      const ids: (number | string)[][] = [];
      for (const q of queries) {
        const t = performance.now();
        const r = await call(engine.url, 'POST', '/collections/bench/points/search', {
          vector: q,
          limit: K,
          params: { exact },
        });
        latencies.push(performance.now() - t);
        ids.push((r.body.result as { id: number }[]).map((p) => p.id));
      }
      return { latencies, ids };
    };
    const exact = await run(true);
    const approx = await run(false);
    return {
      upsertPerSec,
      indexSeconds,
      exact: summary(exact.latencies),
      approx: summary(approx.latencies),
      recall: recall(approx.ids, exact.ids),
      rssMiB: rssMiB(engine.child.pid!),
    };
  } finally {
    await engine.dispose();
  }
}

async function benchEdge(): Promise<Side> {
  const driver = await EdgeDriver.start();
  try {
    const pid = driver.pid;
    await driver.ok({ cmd: 'create', name: 'bench', size: DIM, distance: 'Cosine' });
    const started = performance.now();
    for (let i = 0; i < POINTS; i += BATCH) {
      const points = data.slice(i, i + BATCH).map((v, j) => ({ id: i + j, vector: v }));
      await driver.ok({ cmd: 'upsert', name: 'bench', points });
    }
    const upsertPerSec = POINTS / ((performance.now() - started) / 1000);
    const optimized = (await driver.ok({ cmd: 'optimize', name: 'bench' })) as { seconds: number };
    const run = async (exact: boolean) => {
      const r = (await driver.ok({
        cmd: 'search_many',
        name: 'bench',
        vectors: queries,
        limit: K,
        exact,
      })) as {
        latencies: number[];
        ids: (number | string)[][];
      };
      return { latencies: r.latencies.map((s) => s * 1000), ids: r.ids };
    };
    const exact = await run(true);
    const approx = await run(false);
    return {
      upsertPerSec,
      indexSeconds: optimized.seconds,
      exact: summary(exact.latencies),
      approx: summary(approx.latencies),
      recall: recall(approx.ids, exact.ids),
      rssMiB: rssMiB(pid),
    };
  } finally {
    await driver.stop();
  }
}

console.log(`${POINTS} random ${DIM}-d vectors (Cosine), ${QUERIES} queries, top ${K}`);
const edge = await benchEdge();
const engine = await benchEngine();
const rows: [string, (s: Side) => number, string][] = [
  ['upsert points/s', (s) => s.upsertPerSec, 'higher is better'],
  ['index build s (after upsert)', (s) => s.indexSeconds, 'lower is better'],
  ['exact search QPS', (s) => s.exact.qps, 'higher is better'],
  ['exact search p99 ms', (s) => s.exact.p99, 'lower is better'],
  ['approx search QPS', (s) => s.approx.qps, 'higher is better'],
  ['approx search p50 ms', (s) => s.approx.p50, 'lower is better'],
  ['approx search p99 ms', (s) => s.approx.p99, 'lower is better'],
  ['recall@10 (approx vs exact)', (s) => s.recall, 'higher is better'],
  ['RSS MiB', (s) => s.rssMiB, 'lower is better'],
];
console.log(
  'metric'.padEnd(30) + 'engine'.padStart(12) + 'qdrant-edge'.padStart(14) + 'ratio'.padStart(9),
);
for (const [name, get, note] of rows) {
  const e = get(engine);
  const q = get(edge);
  const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(3));
  console.log(
    name.padEnd(30) +
      fmt(e).padStart(12) +
      fmt(q).padStart(14) +
      (e / q).toFixed(2).padStart(9) +
      `  (${note})`,
  );
}
