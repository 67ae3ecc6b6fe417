/**
 * The engine against qdrant-edge (Qdrant's Rust core, in-process in Python) on the same
 * data in the same run, one data set at a time:
 *
 * - the recall@10/QPS curve over `ef` for both, and the QPS each reaches at recall@10 0.95
 *   (interpolated between the two `ef` that bracket it), so the two are compared at equal
 *   recall rather than at their defaults;
 * - filtered searches at 1%, 10% and 50% selectivity (an indexed integer field): each
 *   side's filtered recall/QPS curve over `ef`, every point the fastest of BENCH_REPEATS
 *   passes (3; the sides alternate), and the QPS each reaches at filtered recall@10 0.95,
 *   interpolated as above, or at the most the weaker side reaches when one never gets to
 *   0.95 (the row names the recall). Also printed: a first pass with the filter at the
 *   `ef` each side needed unfiltered (the engine plans the filter and, for a broad one,
 *   learns each slot's answer until the next write) and a second pass at that `ef`;
 * - exact search, load plus index build time, resident memory after the load and again
 *   after the searches (the summary row takes the higher ratio);
 * - the engine over HTTP: upserts, one client at a time, and a batch of concurrent clients,
 *   with the CPU its main thread spent per search (bench/engine-http-search.ts looks closer).
 *
 * Both cores are searched in-process with no transport: qdrant-edge's shard in the driver
 * (test/engine/differential/edge_bench_commands.py), the engine's collection in a child
 * of its own (bench/support/engine-core.ts). Recall is measured against the engine's exact
 * search. Data sets are uniform random vectors and clustered ones that look like
 * embeddings (bench/support/vectors.ts), Cosine, with payload `{bucket: id % 100}`.
 * Needs the venv: `node hack/python/ensure-venv.mjs`. Sizes come from the environment:
 *
 *   BENCH_POINTS=100000 BENCH_QUERIES=200 BENCH_SETS=clustered-128,uniform-128,clustered-768 \
 *   BENCH_EFS=10,16,24,32,48,64,96,128,192,256,384,512,768 BENCH_CLIENTS=8 BENCH_HTTP=1 \
 *   BENCH_REPEATS=3 \
 *   node --import tsx bench/engine-vs-qdrant-edge.ts
 *
 * A quick run: BENCH_POINTS=20000 BENCH_QUERIES=100 BENCH_SETS=clustered-128,uniform-128.
 *
 * A set named with `:int8` (`clustered-128:int8`) is the same data with scalar int8
 * quantization on both sides (`quantization_config.scalar`, quantile BENCH_QUANTILE, none
 * unless given: at 0.99 both lose recall on clustered data) and every approximate search
 * rescored from the originals with BENCH_OVERSAMPLING (1 unless given); exact search ignores
 * the codes on both sides. Each side then also walks its same graph over the floats
 * (`quantization.ignore`), right after each quantized step, so int8 and float are compared
 * back to back on one build.
 *
 * What it printed for int8 (BENCH_SETS=clustered-768:int8,clustered-128:int8
 * BENCH_OVERSAMPLING=2 BENCH_HTTP=0, 100k points, 200 queries; 2 cores shared with other
 * jobs at load 7-11, so single points swing 2x: read the curves, not one number), QPS at
 * recall@10 0.95, int8 / the same graph over floats:
 * - 768-d: engine 4201/2695, 5341/4396, 3872/2623 (1.2-1.6x); qdrant-edge 6216/2245,
 *   4050/3661, 3488/2821 (1.1-2.8x). RSS 805-808 MiB against 732 MiB without int8 (the codes,
 *   100k x 784 bytes, are kept beside the floats); qdrant-edge 1118-1135 against 1063 MiB.
 * - 128-d: engine 8318/8057, 11795/11540 at ef 16: no gain (the walk's cost is not in the
 *   distance kernel at this width); qdrant-edge 9588/8935. RSS 272-288 against 241 MiB;
 *   qdrant-edge 312 both ways.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENV_PYTHON } from '../test/engine/differential/edge-driver.js';
import { TEST_ENGINE_API_KEY, startEngine } from '../test/engine/support/engine-process.js';
import { keepAliveClient } from './support/keep-alive-client.js';
import { LineProcess } from './support/line-process.js';
import { makeVectors } from './support/vectors.js';
import type { DataKind } from './support/vectors.js';

const env = process.env;
const POINTS = Number(env.BENCH_POINTS ?? 100_000);
const QUERIES = Number(env.BENCH_QUERIES ?? 200);
const SETS = (env.BENCH_SETS ?? 'clustered-128,uniform-128,clustered-768').split(',');
const EFS = (env.BENCH_EFS ?? '10,16,24,32,48,64,96,128,192,256,384,512,768')
  .split(',')
  .map(Number);
const CLIENTS = Number(env.BENCH_CLIENTS ?? 8);
/** Data sets also measured over HTTP: `1` all, `0` none, or a list of names. */
const HTTP = env.BENCH_HTTP ?? '1';
const httpFor = (name: string) => HTTP === '1' || HTTP.split(',').includes(name);
/** The curve stops once both sides reach this recall: higher `ef` says nothing more. */
const CURVE_END_RECALL = 0.99;
const K = 10;
const TARGET_RECALL = 0.95;
/** `quantization_config.scalar.quantile`; absent (Qdrant's default: every value in range) unless given. */
const QUANTILE = env.BENCH_QUANTILE === undefined ? undefined : Number(env.BENCH_QUANTILE);
const SCALAR = { type: 'int8', ...(QUANTILE === undefined ? {} : { quantile: QUANTILE }) };
const OVERSAMPLING = Number(env.BENCH_OVERSAMPLING ?? 1);
/** The search params of an approximate search on a quantized set, the same on both sides. */
const RESCORED = { ignore: false, rescore: true, oversampling: OVERSAMPLING };
const SELECTIVITIES = [1, 10, 50];
/** Passes per side at each point of a filtered curve; the fastest is kept. */
const REPEATS = Number(env.BENCH_REPEATS ?? 3);
const BUCKETS = 100;
/** Live points before the engine builds its graph: its default, or a fifth of a small run. */
const THRESHOLD = Math.min(20_000, Math.floor(POINTS / 5));

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
type Ids = unknown[][];
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, read ad hoc
type Json = any;

interface Timed {
  qps: number;
  p50: number;
  p99: number;
}

/** QPS as queries over the summed latencies; p50 and p99 in ms. */
function summary(latenciesS: number[]): Timed {
  const ms = latenciesS.map((s) => s * 1000).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
  const total = ms.reduce((a, b) => a + b, 0);
  return { qps: (ms.length * 1000) / total, p50: at(0.5), p99: at(0.99) };
}

function recall(found: Ids, truth: Ids): number {
  let hits = 0;
  let wanted = 0;
  found.forEach((ids, i) => {
    const want = new Set(truth[i]);
    wanted += want.size;
    hits += ids.filter((id) => want.has(id)).length;
  });
  return wanted === 0 ? 1 : hits / wanted;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

interface CurvePoint extends Timed {
  ef: number;
  recall: number;
}

/**
 * The QPS at `target` recall ({@link TARGET_RECALL} unless given): interpolated between the
 * last `ef` below it and the first at or above it; the first point's QPS when even the
 * smallest `ef` reaches it.
 */
function qpsAtTarget(
  curve: CurvePoint[],
  target = TARGET_RECALL,
): { qps: number; ef: number } | undefined {
  const at = curve.findIndex((p) => p.recall >= target);
  if (at < 0) return undefined;
  const hi = curve[at]!;
  if (at === 0) return { qps: hi.qps, ef: hi.ef };
  const lo = curve[at - 1]!;
  const t = (target - lo.recall) / (hi.recall - lo.recall);
  return { qps: lo.qps + t * (hi.qps - lo.qps), ef: hi.ef };
}

/**
 * Both sides' QPS at equal recall: at {@link TARGET_RECALL} when both curves reach it, else
 * at the highest recall the weaker side reaches (the `recall` returned says which).
 */
function atEqualRecall(curves: { engine: CurvePoint[]; edge: CurvePoint[] }): {
  recall: number;
  engine: { qps: number; ef: number };
  edge: { qps: number; ef: number };
} {
  const best = (curve: CurvePoint[]) => Math.max(...curve.map((p) => p.recall));
  const recall = Math.min(TARGET_RECALL, best(curves.engine), best(curves.edge));
  return {
    recall,
    engine: qpsAtTarget(curves.engine, recall)!,
    edge: qpsAtTarget(curves.edge, recall)!,
  };
}

const bucketFilter = (percent: number) => ({
  must: [{ key: 'bucket', range: { lt: (percent * BUCKETS) / 100 } }],
});

interface SearchAnswer {
  latencies: number[];
  ids: Ids;
}

/** A keep-alive client of the engine that parses each answer as JSON. */
function httpClient(base: string, sockets: number) {
  const send = keepAliveClient(base, sockets, { 'api-key': TEST_ENGINE_API_KEY });
  return async (method: string, path: string, body?: unknown) => {
    const res = await send(method, path, body);
    return { status: res.status, body: JSON.parse(res.body) as Json };
  };
}

interface HttpSide {
  upsertPerSec: number;
  loadAndIndexSeconds: number;
  sequential: Timed;
  recall: number;
  concurrentQps: number;
  /** CPU the engine's main thread (the one that serves requests) spent per concurrent search, ms. */
  concurrentCpuMs: number;
  rssMiB: number;
}

/** CPU seconds (user + system) the main thread of a process has spent, from /proc. */
function mainThreadCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; in ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The engine as a server: HTTP upserts, then searches at `ef`, sequential and concurrent. */
async function benchHttp(
  dim: number,
  base: Float32Array[],
  queries: Float32Array[],
  ef: number,
  truth: Ids,
  quantized: boolean,
): Promise<HttpSide> {
  const engine = await startEngine({ env: { SVC_ENGINE_INDEX_THRESHOLD: String(THRESHOLD) } });
  const call = httpClient(engine.url, CLIENTS);
  try {
    await call('PUT', '/collections/bench', {
      vectors: { size: dim, distance: 'Cosine' },
      ...(quantized ? { quantization_config: { scalar: SCALAR } } : {}),
    });
    await call('PUT', '/collections/bench/index?wait=true', {
      field_name: 'bucket',
      field_schema: 'integer',
    });
    // About 1 MB of JSON per request, under the engine's body limit at any dimension.
    const batch = Math.max(50, Math.floor(128_000 / dim));
    const started = performance.now();
    for (let i = 0; i < base.length; i += batch) {
      const points = base.slice(i, i + batch).map((v, j) => ({
        id: i + j,
        vector: Array.from(v),
        payload: { bucket: (i + j) % BUCKETS },
      }));
      const r = await call('PUT', '/collections/bench/points?wait=true', { points });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    }
    const upsertPerSec = base.length / ((performance.now() - started) / 1000);
    for (;;) {
      const info = (await call('GET', '/collections/bench')).body.result;
      if (info.status === 'green' && info.indexed_vectors_count === info.points_count) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const loadAndIndexSeconds = (performance.now() - started) / 1000;
    const bodies = queries.map((q) =>
      JSON.stringify({
        vector: Array.from(q),
        limit: K,
        params: { hnsw_ef: ef, ...(quantized ? { quantization: RESCORED } : {}) },
      }),
    );
    for (const text of bodies.slice(0, 20))
      await call('POST', '/collections/bench/points/search', text);
    const latencies: number[] = [];
    const ids: Ids = [];
    for (const text of bodies) {
      const t = performance.now();
      const r = await call('POST', '/collections/bench/points/search', text);
      latencies.push((performance.now() - t) / 1000);
      ids.push((r.body.result as { id: number }[]).map((p) => p.id));
    }
    // Concurrent clients: each sends its share of the queries, twice over, one at a time.
    const total = queries.length * 2;
    let next = 0;
    const cpuBefore = mainThreadCpuSeconds(engine.child.pid!);
    const t = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < total) {
          const text = bodies[next++ % bodies.length]!;
          await call('POST', '/collections/bench/points/search', text);
        }
      }),
    );
    const concurrentQps = total / ((performance.now() - t) / 1000);
    const concurrentCpuMs = ((mainThreadCpuSeconds(engine.child.pid!) - cpuBefore) * 1000) / total;
    return {
      upsertPerSec,
      loadAndIndexSeconds,
      sequential: summary(latencies),
      recall: recall(ids, truth),
      concurrentQps,
      concurrentCpuMs,
      rssMiB: rssMiB(engine.child.pid!),
    };
  } finally {
    await engine.dispose();
  }
}

function writeVectors(path: string, vectors: Float32Array[], dim: number): void {
  const flat = new Float32Array(vectors.length * dim);
  vectors.forEach((v, i) => flat.set(v, i * dim));
  writeFileSync(path, Buffer.from(flat.buffer));
}

/** Both sides' curves, one line per `ef`. */
function printCurves(curves: { engine: CurvePoint[]; edge: CurvePoint[] }): void {
  const col = (p: CurvePoint) =>
    `${p.recall.toFixed(3).padStart(13)} ${p.qps.toFixed(0).padStart(6)} ${p.p99.toFixed(2).padStart(8)}`;
  console.log('  ef   engine recall   QPS    p99 ms | edge recall   QPS    p99 ms');
  curves.engine.forEach((e, i) =>
    console.log(`${String(e.ef).padStart(5)}${col(e)} |${col(curves.edge[i]!)}`),
  );
}

type Row = [string, number | undefined, number | undefined, 'higher' | 'lower'];

function printRows(rows: Row[]): void {
  const fmt = (x: number | undefined) =>
    x === undefined ? 'n/a' : Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(3);
  console.log(
    'metric'.padEnd(38) + 'engine'.padStart(11) + 'qdrant-edge'.padStart(13) + 'ratio'.padStart(8),
  );
  for (const [name, e, q, better] of rows) {
    const ratio = e !== undefined && q !== undefined ? (e / q).toFixed(2) : '';
    console.log(
      name.padEnd(38) +
        fmt(e).padStart(11) +
        fmt(q).padStart(13) +
        ratio.padStart(8) +
        `  (${better} is better)`,
    );
  }
}

interface SetResult {
  name: string;
  annRatio: number | undefined;
  p99: [number, number];
  /** Filtered QPS ratios at equal recall, and at the `ef` each side needs unfiltered. */
  filtered: (number | undefined)[];
  filteredAtEf: number[];
  /** The recall each filtered ratio is at: 0.95, or the most the weaker side reached. */
  filteredRecall: number[];
  exactRatio: number;
  buildRatio: number;
  rssRatio: number;
}

async function benchSet(name: string): Promise<SetResult> {
  const [dataName, variant] = name.split(':') as [string, string | undefined];
  if (variant !== undefined && variant !== 'int8') throw new Error(`unknown variant ${variant}`);
  const quantized = variant === 'int8';
  const [kind, dimText] = dataName.split('-') as [DataKind, string];
  const dim = Number(dimText);
  const data = makeVectors(kind, dim, POINTS, QUERIES);
  const dir = mkdtempSync(join(tmpdir(), 'engine-vs-edge-'));
  const basePath = join(dir, 'base.f32');
  const queryPath = join(dir, 'queries.f32');
  writeVectors(basePath, data.base, dim);
  writeVectors(queryPath, data.queries, dim);
  const queries = data.queries.map((v) => Array.from(v));
  console.log(
    `\n== ${POINTS} ${kind} ${dim}-d vectors (Cosine), ${QUERIES} queries, top ${K}` +
      (quantized
        ? `, int8 (quantile ${QUANTILE ?? 1}, rescored, oversampling ${OVERSAMPLING})`
        : ''),
  );

  const edge = LineProcess.start(VENV_PYTHON, [
    join(root, 'test/engine/differential/qdrant_edge_driver.py'),
  ]);
  const core = LineProcess.start(process.execPath, [
    '--expose-gc',
    '--import',
    'tsx',
    join(root, 'bench/support/engine-core.ts'),
  ]);
  try {
    await edge.ok({
      cmd: 'create',
      name: 'bench',
      size: dim,
      distance: 'Cosine',
      ...(quantized ? { quantization: { quantile: QUANTILE, always_ram: true } } : {}),
    });
    await edge.ok({
      cmd: 'create_index',
      name: 'bench',
      field: 'bucket',
      schema: 'integer',
    });
    const edgeLoad = (await edge.ok({
      cmd: 'load_points',
      name: 'bench',
      path: basePath,
      dim,
      buckets: BUCKETS,
    })) as { seconds: number };
    const edgeIndex = (await edge.ok({ cmd: 'optimize', name: 'bench' })) as { seconds: number };
    const edgeBuild = edgeLoad.seconds + edgeIndex.seconds;
    const coreLoad = (await core.ok({
      cmd: 'load',
      path: basePath,
      queries: queryPath,
      dim,
      buckets: BUCKETS,
      threshold: THRESHOLD,
      ...(quantized ? { quantization: QUANTILE === undefined ? {} : { quantile: QUANTILE } } : {}),
    })) as { upsertSeconds: number; indexSeconds: number };
    const coreBuild = coreLoad.upsertSeconds + coreLoad.indexSeconds;
    const rss = { engine: rssMiB(core.pid), edge: rssMiB(edge.pid) };

    // On a quantized set, approximate searches rescore and exact ones ignore the codes.
    const quantization = (req: Record<string, unknown>) =>
      !quantized ? {} : { quantization: req.exact ? { ignore: true } : RESCORED };
    const engineSearch = async (req: Record<string, unknown>) =>
      (await core.ok({
        cmd: 'search_many',
        limit: K,
        ...quantization(req),
        ...req,
      })) as SearchAnswer;
    const edgeSearch = async (req: Record<string, unknown>) =>
      (await edge.ok({
        cmd: 'search_many',
        name: 'bench',
        vectors: queries,
        limit: K,
        ...quantization(req),
        ...req,
      })) as SearchAnswer;

    // Warm both up (the engine's JIT, both sides' caches), then alternate sides per step.
    await engineSearch({ ef: EFS[0] });
    await edgeSearch({ hnsw_ef: EFS[0] });
    const engineExact = await engineSearch({ exact: true });
    const edgeExact = await edgeSearch({ exact: true });
    const truth = engineExact.ids;
    // Again after the exact scans, or the first point of the curve pays for their garbage.
    await engineSearch({ ef: EFS[0] });
    await edgeSearch({ hnsw_ef: EFS[0] });
    const curves = { engine: [] as CurvePoint[], edge: [] as CurvePoint[] };
    // On a quantized set, each side also walks the same graph over its float vectors
    // (`ignore: true`), right after the quantized walk: int8 against float, back to back.
    const floatCurves = { engine: [] as CurvePoint[], edge: [] as CurvePoint[] };
    const IGNORE = { quantization: { ignore: true } };
    const done = (curve: CurvePoint[]) => !curve.length || curve.at(-1)!.recall >= CURVE_END_RECALL;
    for (const ef of EFS) {
      const e = await engineSearch({ ef });
      const q = await edgeSearch({ hnsw_ef: ef });
      curves.engine.push({ ef, ...summary(e.latencies), recall: recall(e.ids, truth) });
      curves.edge.push({ ef, ...summary(q.latencies), recall: recall(q.ids, truth) });
      if (quantized) {
        const ignored = await engineSearch({ ef, ...IGNORE });
        const qf = await edgeSearch({ hnsw_ef: ef, ...IGNORE });
        floatCurves.engine.push({
          ef,
          ...summary(ignored.latencies),
          recall: recall(ignored.ids, truth),
        });
        floatCurves.edge.push({ ef, ...summary(qf.latencies), recall: recall(qf.ids, truth) });
      }
      if ([curves.engine, curves.edge, floatCurves.engine, floatCurves.edge].every(done)) break;
    }
    printCurves(curves);
    if (quantized) {
      console.log('  the same graphs walked over float vectors (quantization ignored):');
      printCurves(floatCurves);
    }
    const at = { engine: qpsAtTarget(curves.engine), edge: qpsAtTarget(curves.edge) };
    const efOf = (side: 'engine' | 'edge') => at[side]?.ef ?? curves[side].at(-1)!.ef;
    const p99At = (side: 'engine' | 'edge') => curves[side].find((p) => p.ef === efOf(side))!.p99;

    const filtered: {
      percent: number;
      engine: CurvePoint;
      edge: CurvePoint;
      /** QPS of the first pass with the filter: the engine plans it and learns its answers. */
      first: { engine: number; edge: number };
      /** Both sides at equal recall, from the filtered curves. */
      equal: ReturnType<typeof atEqualRecall>;
    }[] = [];
    for (const percent of SELECTIVITIES) {
      const filter = bucketFilter(percent);
      const exact = await engineSearch({ exact: true, filter });
      const e1 = await engineSearch({ ef: efOf('engine'), filter });
      const q1 = await edgeSearch({ hnsw_ef: efOf('edge'), filter });
      const e = await engineSearch({ ef: efOf('engine'), filter });
      const q = await edgeSearch({ hnsw_ef: efOf('edge'), filter });
      // The filtered curve over `ef`, each point the fastest of REPEATS passes per side
      // (the sides alternating), so one slow pass on a busy machine does not set a row.
      const filteredCurves = { engine: [] as CurvePoint[], edge: [] as CurvePoint[] };
      for (const ef of EFS) {
        let fastest: { engine?: CurvePoint; edge?: CurvePoint } = {};
        for (let pass = 0; pass < REPEATS; pass++) {
          const ep = await engineSearch({ ef, filter });
          const qp = await edgeSearch({ hnsw_ef: ef, filter });
          const point = (a: SearchAnswer) => ({
            ef,
            ...summary(a.latencies),
            recall: recall(a.ids, exact.ids),
          });
          const [pe, pq] = [point(ep), point(qp)];
          fastest = {
            engine: fastest.engine && fastest.engine.qps >= pe.qps ? fastest.engine : pe,
            edge: fastest.edge && fastest.edge.qps >= pq.qps ? fastest.edge : pq,
          };
        }
        filteredCurves.engine.push(fastest.engine!);
        filteredCurves.edge.push(fastest.edge!);
        if ([filteredCurves.engine, filteredCurves.edge].every(done)) break;
      }
      filtered.push({
        percent,
        engine: { ef: efOf('engine'), ...summary(e.latencies), recall: recall(e.ids, exact.ids) },
        edge: { ef: efOf('edge'), ...summary(q.latencies), recall: recall(q.ids, exact.ids) },
        first: { engine: summary(e1.latencies).qps, edge: summary(q1.latencies).qps },
        equal: atEqualRecall(filteredCurves),
      });
      console.log(`  filtered ${percent}%:`);
      printCurves(filteredCurves);
    }

    const exact = { engine: summary(engineExact.latencies), edge: summary(edgeExact.latencies) };
    const rows: Row[] = [
      [`ANN QPS at recall@10 ${TARGET_RECALL}`, at.engine?.qps, at.edge?.qps, 'higher'],
      [`  ef reaching it`, at.engine?.ef, at.edge?.ef, 'lower'],
      [`  p99 ms at that ef`, p99At('engine'), p99At('edge'), 'lower'],
    ];
    if (quantized) {
      const floatAt = {
        engine: qpsAtTarget(floatCurves.engine),
        edge: qpsAtTarget(floatCurves.edge),
      };
      rows.push([
        `  same graph, quantization ignored`,
        floatAt.engine?.qps,
        floatAt.edge?.qps,
        'higher',
      ]);
    }
    for (const f of filtered) {
      const { equal } = f;
      rows.push([
        `filtered ${f.percent}% QPS at recall@10 ${equal.recall.toFixed(3)}`,
        equal.engine.qps,
        equal.edge.qps,
        'higher',
      ]);
      rows.push([`  ef reaching it`, equal.engine.ef, equal.edge.ef, 'lower']);
      rows.push([`  QPS at the unfiltered ef`, f.engine.qps, f.edge.qps, 'higher']);
      rows.push([`  recall@10`, f.engine.recall, f.edge.recall, 'higher']);
      rows.push([`  p99 ms`, f.engine.p99, f.edge.p99, 'lower']);
      rows.push([`  first pass QPS`, f.first.engine, f.first.edge, 'higher']);
    }
    rows.push(
      ['exact search QPS', exact.engine.qps, exact.edge.qps, 'higher'],
      ['exact search p99 ms', exact.engine.p99, exact.edge.p99, 'lower'],
      ['load + index build s', coreBuild, edgeBuild, 'lower'],
      ['  of which index after load s', coreLoad.indexSeconds, edgeIndex.seconds, 'lower'],
      ['RSS MiB (in-process core)', rss.engine, rss.edge, 'lower'],
    );
    // Again after every search: the engine's scan helper thread and filter caches by then.
    const rssAfter = { engine: rssMiB(core.pid), edge: rssMiB(edge.pid) };
    rows.push(['  after the searches', rssAfter.engine, rssAfter.edge, 'lower']);
    await core.stop();

    let rssRatio = Math.max(rss.engine / rss.edge, rssAfter.engine / rssAfter.edge);
    if (httpFor(name)) {
      const http = await benchHttp(dim, data.base, data.queries, efOf('engine'), truth, quantized);
      rows.push(
        ['HTTP upsert points/s', http.upsertPerSec, undefined, 'higher'],
        ['HTTP load + index build s', http.loadAndIndexSeconds, edgeBuild, 'lower'],
        [
          `HTTP search QPS, 1 client (ef ${efOf('engine')})`,
          http.sequential.qps,
          at.edge?.qps,
          'higher',
        ],
        ['  p99 ms', http.sequential.p99, p99At('edge'), 'lower'],
        ['  recall@10', http.recall, undefined, 'higher'],
        [`HTTP search QPS, ${CLIENTS} clients`, http.concurrentQps, at.edge?.qps, 'higher'],
        // What a search costs the server, against what it costs each core in-process.
        [
          '  engine main-thread CPU ms/search',
          http.concurrentCpuMs,
          at.edge ? 1000 / at.edge.qps : undefined,
          'lower',
        ],
        [
          '  in-process core ms/search (same ef)',
          1000 / curves.engine.find((p) => p.ef === efOf('engine'))!.qps,
          undefined,
          'lower',
        ],
        ['RSS MiB (HTTP server)', http.rssMiB, rss.edge, 'lower'],
      );
      rssRatio = http.rssMiB / rss.edge;
    }
    printRows(rows);
    return {
      name,
      annRatio: at.engine && at.edge ? at.engine.qps / at.edge.qps : undefined,
      p99: [p99At('engine'), p99At('edge')],
      filtered: filtered.map((f) => f.equal.engine.qps / f.equal.edge.qps),
      filteredAtEf: filtered.map((f) => f.engine.qps / f.edge.qps),
      filteredRecall: filtered.map((f) => f.equal.recall),
      exactRatio: exact.engine.qps / exact.edge.qps,
      buildRatio: coreBuild / edgeBuild,
      rssRatio,
    };
  } finally {
    await core.stop();
    await edge.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: SetResult[] = [];
for (const name of SETS) results.push(await benchSet(name));

console.log('\n== engine/qdrant-edge ratios (QPS: higher is better; time, memory: lower)');
console.log(
  'data set'.padEnd(15) +
    'ANN@0.95'.padStart(9) +
    'p99 ms e/q'.padStart(13) +
    SELECTIVITIES.map((p) => `filt ${p}%`.padStart(9)).join('') +
    'exact'.padStart(7) +
    'build'.padStart(7) +
    'RSS'.padStart(6),
);
const r2 = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(2));
for (const r of results) {
  console.log(
    r.name.padEnd(15) +
      r2(r.annRatio).padStart(9) +
      `${r.p99[0].toFixed(2)}/${r.p99[1].toFixed(2)}`.padStart(13) +
      r.filtered.map((x) => r2(x).padStart(9)).join('') +
      r2(r.exactRatio).padStart(7) +
      r2(r.buildRatio).padStart(7) +
      r2(r.rssRatio).padStart(6),
  );
}
console.log(
  '\nfiltered ratios: at equal recall (the recall) | at the ef each side needs unfiltered',
);
for (const r of results) {
  const equal = r.filtered.map((x, i) => `${r2(x)} (${r.filteredRecall[i]!.toFixed(3)})`);
  console.log(`${r.name.padEnd(15)} ${equal.join('  ')} | ${r.filteredAtEf.map(r2).join('  ')}`);
}
