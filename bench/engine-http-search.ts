/**
 * The engine's search over HTTP against its own core in-process, on the same data, one
 * after the other: what a client of the server pays on top of the index.
 *
 * 1. The core (bench/support/engine-core.ts, no HTTP, no JSON): each query timed around
 *    one search call, as bench/engine-vs-qdrant-edge.ts does; searches/s is queries over
 *    the summed latencies.
 * 2. The real engine (engine/src/main.ts) loaded over HTTP, searched by one client, then by
 *    `BENCH_CLIENTS` concurrent keep-alive clients for `BENCH_SECONDS`: searches/s (wall
 *    time), p50 and p99 of each request, and the CPU the engine and the client process
 *    spent per search (from /proc and process.cpuUsage), which is what the rate is made of
 *    when both share a small machine.
 *
 *   BENCH_POINTS=100000 BENCH_DIM=128 BENCH_KIND=clustered BENCH_EF=16 BENCH_CLIENTS=8 \
 *   BENCH_SECONDS=10 BENCH_CORE=1 npx tsx bench/engine-http-search.ts
 *
 * `BENCH_CORE=0` skips the core (its own index build takes as long as the server's);
 * `BENCH_PROFILE_DIR=dir` writes a V8 CPU profile of the engine under the concurrent load there.
 *
 * Measured 2026-11-26 on the shared 2-core machine (load average about 7 from other work),
 * 100k clustered 128-d, ef 16, 8 clients, the tree before commit 9cd0482 then with it:
 *
 *   before: core 3290/s (p99 6.33 ms); HTTP 1 client 1279/s p99 5.02 ms; 8 clients 2056/s
 *           p50 2.75 ms p99 15.75 ms, engine main thread 0.230 ms CPU per search
 *   after:  core 6536/s (p99 2.76 ms); HTTP 1 client 1771/s p99 2.74 ms; 8 clients 4221/s
 *           p50 1.49 ms p99 5.21 ms, engine main thread 0.202 ms CPU per search
 *
 * The rates move 2x between runs with the machine's load (the core's own did here), so the
 * CPU per search is the number to compare; paired runs of the two trees in alternating
 * rounds gave 0.237 -> 0.225 ms (100k) and 0.191 -> 0.167 ms (20k). Of the rest of that CPU,
 * about 0.05 ms is node:http itself (a bare node:http server parsing the same body spends
 * 0.051-0.058 ms), 0.015 ms JSON.parse of the vector's 17-digit numbers, and the search.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_ENGINE_API_KEY, startEngine } from '../test/engine/support/engine-process.js';
import { keepAliveClient } from './support/keep-alive-client.js';
import { LineProcess } from './support/line-process.js';
import { makeVectors } from './support/vectors.js';
import type { DataKind } from './support/vectors.js';

const env = process.env;
const POINTS = Number(env.BENCH_POINTS ?? 100_000);
const DIM = Number(env.BENCH_DIM ?? 128);
const KIND = (env.BENCH_KIND ?? 'clustered') as DataKind;
const QUERIES = Number(env.BENCH_QUERIES ?? 200);
const EF = Number(env.BENCH_EF ?? 16);
const CLIENTS = Number(env.BENCH_CLIENTS ?? 8);
const SECONDS = Number(env.BENCH_SECONDS ?? 10);
const CORE = env.BENCH_CORE !== '0';
const PROFILE_DIR = env.BENCH_PROFILE_DIR ? resolve(env.BENCH_PROFILE_DIR) : undefined;
const K = 10;
const BUCKETS = 100;
const THRESHOLD = Math.min(20_000, Math.floor(POINTS / 5));
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TICKS_PER_SECOND = 100;

interface Timed {
  perSecond: number;
  p50: number;
  p99: number;
}

/** p50 and p99 in ms of latencies in ms; `perSecond` is supplied by the caller. */
function percentiles(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

/** CPU seconds (user + system) a process or one thread (`/proc/<pid>/task/<tid>`) has spent. */
function cpuSeconds(proc: string): number {
  const fields = readFileSync(`${proc}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of a process: its main thread (the one that serves requests) and the rest. */
function engineCpu(pid: number): { main: number; others: number } {
  const all = cpuSeconds(`/proc/${pid}`);
  const main = cpuSeconds(`/proc/${pid}/task/${pid}`);
  return { main, others: all - main };
}

function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** A keep-alive HTTP/1.1 client sending pre-serialised bodies, as light as node:http gets. */
function httpClient(base: string, sockets: number) {
  return keepAliveClient(base, sockets, { 'api-key': TEST_ENGINE_API_KEY });
}

/**
 * A module the engine imports first (NODE_OPTIONS allows `--import`, not `--cpu-prof`):
 * it starts V8's sampling profiler on SIGUSR2 (sent as the concurrent clients start) and
 * writes a `.cpuprofile` into `dir` as the process exits (the engine exits on SIGTERM; the
 * inspector answers on the same thread, at once).
 */
function profilerHook(dir: string): string {
  const path = join(dir, 'profile-hook.mjs');
  writeFileSync(
    path,
    `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 200 });
process.on('SIGUSR2', () => session.post('Profiler.start'));
process.on('exit', () => {
  session.post('Profiler.stop', (error, { profile }) => {
    if (!error) writeFileSync(${JSON.stringify(dir)} + '/engine-' + process.pid + '.cpuprofile', JSON.stringify(profile));
  });
});
`,
  );
  return path;
}

async function benchCore(base: Float32Array[], queries: Float32Array[]): Promise<Timed> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-http-search-'));
  const write = (name: string, vectors: Float32Array[]) => {
    const flat = new Float32Array(vectors.length * DIM);
    vectors.forEach((v, i) => flat.set(v, i * DIM));
    writeFileSync(join(dir, name), Buffer.from(flat.buffer));
    return join(dir, name);
  };
  const core = LineProcess.start(process.execPath, [
    '--expose-gc',
    '--import',
    'tsx',
    join(root, 'bench/support/engine-core.ts'),
  ]);
  try {
    await core.ok({
      cmd: 'load',
      path: write('base.f32', base),
      queries: write('queries.f32', queries),
      dim: DIM,
      buckets: BUCKETS,
      threshold: THRESHOLD,
    });
    const searchMany = async () =>
      (await core.ok({ cmd: 'search_many', ef: EF, limit: K })) as { latencies: number[] };
    await searchMany();
    const ms: number[] = [];
    for (let round = 0; round < 3; round++) {
      ms.push(...(await searchMany()).latencies.map((s) => s * 1000));
    }
    const total = ms.reduce((a, b) => a + b, 0);
    return { perSecond: (ms.length * 1000) / total, ...percentiles(ms) };
  } finally {
    await core.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface HttpResult {
  sequential: Timed;
  concurrent: Timed & {
    engineMainCpuMs: number;
    engineOtherCpuMs: number;
    clientCpuMs: number;
    searches: number;
  };
}

async function benchHttp(base: Float32Array[], queries: Float32Array[]): Promise<HttpResult> {
  const engine = await startEngine({
    env: {
      SVC_ENGINE_INDEX_THRESHOLD: String(THRESHOLD),
      ...(PROFILE_DIR ? { NODE_OPTIONS: `--import ${profilerHook(PROFILE_DIR)}` } : {}),
    },
  });
  const call = httpClient(engine.url, CLIENTS);
  const json = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body) as { result: Record<string, unknown> };
  };
  try {
    await json('PUT', '/collections/bench', { vectors: { size: DIM, distance: 'Cosine' } });
    await json('PUT', '/collections/bench/index?wait=true', {
      field_name: 'bucket',
      field_schema: 'integer',
    });
    const batch = Math.max(50, Math.floor(128_000 / DIM));
    for (let i = 0; i < base.length; i += batch) {
      const points = base.slice(i, i + batch).map((v, j) => ({
        id: i + j,
        vector: Array.from(v),
        payload: { bucket: (i + j) % BUCKETS },
      }));
      await json('PUT', '/collections/bench/points?wait=true', { points });
    }
    for (;;) {
      const info = (await json('GET', '/collections/bench')).result;
      if (info.status === 'green' && info.indexed_vectors_count === info.points_count) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const bodies = queries.map((q) =>
      JSON.stringify({ vector: Array.from(q), limit: K, params: { hnsw_ef: EF } }),
    );
    const path = '/collections/bench/points/search';
    const search = async (body: string) => {
      const started = performance.now();
      const r = await call('POST', path, body);
      if (r.status !== 200) throw new Error(`search: ${r.status} ${r.body}`);
      return performance.now() - started;
    };
    for (const body of bodies) await search(body);

    const sequentialMs: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const body of bodies) sequentialMs.push(await search(body));
    }
    const sequentialTotal = sequentialMs.reduce((a, b) => a + b, 0);

    const concurrentMs: number[] = [];
    let next = 0;
    if (PROFILE_DIR) engine.child.kill('SIGUSR2');
    const cpuBefore = engineCpu(engine.child.pid!);
    const clientCpu = ownCpuSeconds();
    const started = performance.now();
    const until = started + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          concurrentMs.push(await search(bodies[next++ % bodies.length]!));
        }
      }),
    );
    const wallS = (performance.now() - started) / 1000;
    const searches = concurrentMs.length;
    const cpuAfter = engineCpu(engine.child.pid!);
    const result: HttpResult = {
      sequential: {
        perSecond: (sequentialMs.length * 1000) / sequentialTotal,
        ...percentiles(sequentialMs),
      },
      concurrent: {
        perSecond: searches / wallS,
        ...percentiles(concurrentMs),
        engineMainCpuMs: ((cpuAfter.main - cpuBefore.main) * 1000) / searches,
        engineOtherCpuMs: ((cpuAfter.others - cpuBefore.others) * 1000) / searches,
        clientCpuMs: ((ownCpuSeconds() - clientCpu) * 1000) / searches,
        searches,
      },
    };
    // A clean stop lets --cpu-prof write its profile.
    if (PROFILE_DIR) await engine.stop();
    return result;
  } finally {
    await engine.dispose();
  }
}

const data = makeVectors(KIND, DIM, POINTS, QUERIES);
console.log(
  `${POINTS} ${KIND} ${DIM}-d points (Cosine), ${QUERIES} queries, top ${K}, ef ${EF}, ` +
    `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
const fmt = (t: Timed) =>
  `${t.perSecond.toFixed(0).padStart(6)} searches/s  p50 ${t.p50.toFixed(2)} ms  p99 ${t.p99.toFixed(2)} ms`;
if (CORE) {
  const core = await benchCore(data.base, data.queries);
  console.log(`core in-process, 1 at a time:   ${fmt(core)}`);
}
const http = await benchHttp(data.base, data.queries);
console.log(`HTTP, 1 client:                  ${fmt(http.sequential)}`);
const c = http.concurrent;
console.log(
  `HTTP, ${CLIENTS} clients (${SECONDS} s):`.padEnd(33) +
    `${fmt(c)}  engine CPU ${c.engineMainCpuMs.toFixed(3)} ms/search on its main thread, ` +
    `${c.engineOtherCpuMs.toFixed(3)} on others, ` +
    `client CPU ${c.clientCpuMs.toFixed(3)} ms/search`,
);
