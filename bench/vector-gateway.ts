/**
 * Search and upsert throughput through the vector gateway against the engine
 * directly, in the same run on the same engine (the ratio is what matters:
 * the goal is gateway/direct >= 0.9), the CPU each process spends per request
 * (what the ratio is made of), and the gateway's peak RSS while it streams one
 * large upsert (10,000 points with ~50 KB payloads each, so a 500 MB body at
 * the default size). The gateway runs as its own process; peak RSS is its
 * VmHWM from /proc, CPU its utime+stime. The caller is an enterprise account,
 * so the rate limit does not cap the numbers.
 *
 *   npx tsx bench/vector-gateway.ts [seconds=5] [upsertPoints=20000] [largeMb=500] [concurrency=16] [dims=128]
 *
 * The load comes from wrk (Debian's `wrk` package, installed when missing and
 * this runs as root; bench/support/wrk.ts), a native load generator, for
 * `seconds` per phase: on a small machine the load generator shares the
 * cores with what it measures, and a Node client spends more CPU per search
 * (about 0.26 ms) than the engine does, which inflates the cost of any hop.
 * LOADGEN=node uses a keep-alive node:http client instead (much cheaper than
 * fetch), for machines without wrk.
 *
 * Each measurement runs ROUNDS times (default 3), direct, through the
 * gateway and through a bare Node proxy (bench/support/bare-proxy.ts, the
 * floor for any Node hop), starting each round at a different one so none
 * always runs first; the report gives medians and every round's ratio.
 * Every upsert round writes a new empty collection per target, with batches
 * of 500 points whose ids cycle below the engine's index threshold (so the
 * first pass inserts, later ones overwrite, and no index build runs in the
 * middle of a phase); all of them search the same collection of
 * `upsertPoints` points, written through the gateway and indexed.
 *
 * The gateway joins concurrent searches of a collection into batch requests
 * to the engine (apiserver/src/vector/search-coalescer.ts); the search rounds
 * also measure a second gateway that never does, and
 * SVC_VECTOR_COALESCE=false turns it off in the first as well.
 *
 * PIN=1 pins the engine to CPU 1 and the gateway, the bare proxy and the
 * load generator to CPU 0 (taskset), so the engine has the same core to
 * itself whichever way it is reached, as Qdrant has its own pods in a
 * cluster; without it every process shares every core.
 *
 * Measured numbers: see bench/README.md.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { readyLine, startReady } from '../common/component-starter.js';
import { envBool } from '../common/env.js';
import { ProcessGroup, type ManagedProcess } from '../common/processes.js';
import { startControlPlane } from '../hack/control-plane/index.js';
import { createBenchAccount } from './support/bench-account.js';
import { startEngine, type EngineProcess } from '../test/engine/support/engine-process.js';
import { cpuSeconds, mainThreadTimes, peakRssMb } from './support/proc.js';
import { ensureWrk, runWrk, type Load } from './support/wrk.js';

const [seconds = 5, upsertPoints = 20_000, largeMb = 500, concurrency = 16, DIM = 128] =
  process.argv.slice(2).map(Number);
const BATCH = 500;
const PIN = process.env.PIN === '1';
const LOADGEN = process.env.LOADGEN ?? 'wrk';
if (LOADGEN !== 'node' && LOADGEN !== 'wrk') throw new Error('LOADGEN is node or wrk');
if (LOADGEN === 'wrk' && !ensureWrk()) {
  console.error('wrk not found: apt-get install wrk, or run with LOADGEN=node');
  process.exit(2);
}
/** Rounds of each measurement; the report gives medians. */
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const client = new Agent({ keepAlive: true, maxSockets: concurrency });

function vector(i: number): number[] {
  return Array.from({ length: DIM }, (_, d) => Math.sin(i * 31 + d));
}

/** One request with a JSON body; resolves with the status once the answer is read. */
function send(url: string, method: string, body: string, key?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent: client,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode! < 300) return resolve(res.statusCode!);
          const text = Buffer.concat(chunks).toString().slice(0, 200);
          reject(new Error(`${method} ${url} answered ${res.statusCode}: ${text}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Throughput of one phase, the CPU the engine and the gateway spent on it,
 * and the shares of the phase the engine's main thread (the single thread
 * that parses and applies requests) spent on a CPU and runnable but waiting
 * for one; the rest it waited for work (null where the kernel keeps no
 * scheduler statistics).
 */
interface Phase {
  perSecond: number;
  engineCpuMs: number;
  gatewayCpuMs: number;
  engineMain: { running: number; waiting: number } | null;
}

/**
 * The ways the bench reaches the engine: `unjoined` is a second gateway that
 * never joins concurrent searches into batch requests (searches only).
 */
type TargetName = 'direct' | 'gateway' | 'unjoined' | 'bare';

/** What each way is called in the report. */
const LABELS: Record<TargetName, string> = {
  direct: 'direct',
  gateway: 'gateway',
  unjoined: 'gateway, searches not joined',
  bare: 'bare proxy',
};

/**
 * How one way creates a collection, and the loads that upsert into one of
 * them and search the shared one.
 */
interface Target {
  pids: { engine: number; gateway: number };
  create(name: string): Promise<number>;
  upsert(name: string, bodies: string[]): Load;
  search(bodies: string[]): Load;
  /** The engine's name of a collection this way created. */
  engineName(name: string): string;
}

/**
 * Sends `load` for `forSeconds` from `concurrency` keep-alive connections of
 * the node:http client, each body in turn; returns how many answers came back.
 */
async function runNode(
  load: Load,
  forSeconds: number,
): Promise<{ requests: number; seconds: number }> {
  let next = 0;
  // Fresh connections: a server closes keep-alive sockets idle for 5 s, and one picked from the
  // pool just as it closes fails the request (EPIPE) when phases are more than 5 s apart.
  client.destroy();
  const started = performance.now();
  const deadline = started + forSeconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await send(load.url, load.method, load.bodies[next++ % load.bodies.length]!, load.key);
      }
    }),
  );
  return { requests: next, seconds: (performance.now() - started) / 1000 };
}

/** Sends `load` for `seconds` with the chosen load generator; per-request CPU is in milliseconds. */
async function phase(
  pids: { engine: number; gateway: number },
  load: Load,
  phaseSeconds = seconds,
): Promise<Phase> {
  const cpu0 = [await cpuSeconds(pids.engine), await cpuSeconds(pids.gateway)];
  const main0 = await mainThreadTimes(pids.engine);
  const done =
    LOADGEN === 'wrk'
      ? await runWrk(load, {
          seconds: phaseSeconds,
          connections: concurrency,
          cpu: PIN ? 0 : undefined,
        })
      : await runNode(load, phaseSeconds);
  const cpu1 = [await cpuSeconds(pids.engine), await cpuSeconds(pids.gateway)];
  const main1 = await mainThreadTimes(pids.engine);
  return {
    perSecond: done.requests / done.seconds,
    engineCpuMs: ((cpu1[0]! - cpu0[0]!) * 1000) / done.requests,
    gatewayCpuMs: ((cpu1[1]! - cpu0[1]!) * 1000) / done.requests,
    engineMain:
      main0 && main1
        ? {
            running: (main1.running - main0.running) / done.seconds,
            waiting: (main1.waiting - main0.waiting) / done.seconds,
          }
        : null,
  };
}

/** The engine's index threshold in this bench: collections from this size on get an HNSW index. */
const INDEX_THRESHOLD = 20_000;

/**
 * Waits until the engine has indexed every point of `collection`: the engine
 * builds its index in the background after upserts (a tail of new points
 * after a quiet second, while the collection still reads green), and that
 * work must not land in the next phase's numbers.
 */
async function settled(engine: EngineProcess, collection: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${engine.url}/collections/${collection}`, {
      headers: { 'api-key': engine.apiKey },
    });
    const info = (await res.json()) as {
      result: { status: string; points_count: number; indexed_vectors_count: number };
    };
    const { status, points_count: points, indexed_vectors_count: indexed } = info.result;
    if (status === 'green' && (points < INDEX_THRESHOLD || indexed === points)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A server process of this bench and the URL it printed. */
interface Started {
  proc: ManagedProcess;
  child: ManagedProcess['child'];
  url: string;
}

/** Starts `bench/<script>` against the engine and waits for its `{"ready":...,"url":...}` line. */
async function startServer(script: string, env: Record<string, string>): Promise<Started> {
  const { proc, announced: url } = await startReady(servers, {
    name: `${script.replace(/\W+/g, '-')}-${servers.processes.length}`,
    command: process.execPath,
    args: [
      // e.g. GATEWAY_NODE_ARGS=--cpu-prof to profile the gateway.
      ...(process.env.GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean),
      '--import',
      'tsx',
      join(root, 'bench', script),
    ],
    cwd: root,
    env: {
      ...process.env,
      SVC_ENGINE_URL: engine.url,
      SVC_ENGINE_API_KEY: engine.apiKey,
      ...env,
    },
    onStderrLine: (line) => process.stderr.write(`${line}\n`),
    readyWhen: { line: readyLine() },
  });
  return { proc, child: proc.child, url };
}

/** Stops a server started by {@link startServer}. */
async function stopServer(server: Started | undefined): Promise<void> {
  if (server) await servers.stop(server.proc);
}

/** Pins a process and all its threads to one CPU. */
async function pin(pid: number, cpu: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const taskset = spawn('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], {
      stdio: 'ignore',
    });
    taskset.once('error', reject);
    taskset.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`taskset exited with ${code}`)),
    );
  });
}

/** The median of `values` (the upper middle one of an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Prints one operation's medians over the rounds: throughput of every way
 * measured, each ratio to direct with every round's own ratio, and the CPU
 * per request of each process.
 */
function report(
  label: string,
  unit: string,
  per: number,
  runs: Partial<Record<TargetName, Phase[]>> & Record<'direct', Phase[]>,
): void {
  const measured = (Object.keys(LABELS) as TargetName[]).filter((name) => runs[name]);
  const phases = (name: TargetName) => runs[name]!;
  const rate = (name: TargetName) => median(phases(name).map((p) => p.perSecond));
  const cpu = (name: TargetName, key: 'engineCpuMs' | 'gatewayCpuMs') =>
    median(phases(name).map((p) => p[key])).toFixed(2);
  const ratios = (name: TargetName) =>
    phases(name)
      .map((p, r) => (p.perSecond / runs.direct[r]!.perSecond).toFixed(2))
      .join(' ');
  const width = Math.max(...measured.map((name) => LABELS[name].length));
  console.log(`${label}, median of ${ROUNDS} rounds:`);
  for (const name of measured) {
    console.log(
      `  ${LABELS[name].padEnd(width)} ${(rate(name) * per).toFixed(0).padStart(8)} ${unit}` +
        (name === 'direct'
          ? ''
          : `  ratio ${(rate(name) / rate('direct')).toFixed(2)} (rounds: ${ratios(name)})`),
    );
  }
  console.log(`  CPU per request (engine / the hop), ms:`);
  for (const name of measured) {
    const hop = name === 'direct' ? '' : ` / ${cpu(name, 'gatewayCpuMs')}`;
    console.log(`    ${LABELS[name].padEnd(width)} ${cpu(name, 'engineCpuMs')}${hop}`);
  }
  if (runs.direct.every((p) => p.engineMain)) {
    const share = (name: TargetName, of: (m: { running: number; waiting: number }) => number) =>
      median(phases(name).map((p) => of(p.engineMain!))).toFixed(2);
    console.log(
      `  engine main thread, share of the phase (on a CPU / waiting for a CPU / waiting for work):`,
    );
    for (const name of measured) {
      const running = share(name, (m) => m.running);
      const waiting = share(name, (m) => m.waiting);
      const idle = share(name, (m) => Math.max(0, 1 - m.running - m.waiting));
      console.log(`    ${LABELS[name].padEnd(width)} ${running} / ${waiting} / ${idle}`);
    }
  }
}

/** A body of `points` points whose payloads fill `totalMb` MiB, generated as it is sent. */
function largeBody(points: number, totalMb: number): Readable {
  const shell = (i: number, text: string) =>
    `{"id":${i},"vector":${JSON.stringify(vector(i))},"payload":{"text":"${text}"}},`;
  // Stay just under the total: the 500 MB cap is inclusive, and vectors differ a little in length.
  const perPoint = Math.floor((totalMb * 1024 * 1024 - 64 * 1024) / points);
  const filler = 'x'.repeat(Math.max(0, perPoint - shell(0, '').length - 64));
  return Readable.from(
    (function* () {
      yield '{"points":[';
      for (let i = 0; i < points; i++) {
        yield `${i ? ',' : ''}${shell(i, filler).slice(0, -1)}`;
      }
      yield ']}';
    })(),
  );
}

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-vectors-'));
const servers = new ProcessGroup(join(dir, 'servers'));
const cp = await startControlPlane({ dir, durable: false, controllerManager: false });
const engine = await startEngine({
  env: { SVC_ENGINE_MAX_BODY_MB: '64', SVC_ENGINE_INDEX_THRESHOLD: String(INDEX_THRESHOLD) },
});
let gateway: Started | undefined;
let unjoined: Started | undefined;
let bare: Started | undefined;
try {
  const { mongoUri, accountId, key } = await createBenchAccount(cp.mongoUri);

  gateway = await startServer('vector-gateway-server.ts', {
    MONGODB_URI: mongoUri,
    KUBECONFIG: cp.kubeconfigPath,
  });
  unjoined = await startServer('vector-gateway-server.ts', {
    MONGODB_URI: mongoUri,
    KUBECONFIG: cp.kubeconfigPath,
    SVC_VECTOR_COALESCE: 'false',
  });
  bare = await startServer('support/bare-proxy.ts', {});
  const gatewayUrl = gateway.url;
  const bareUrl = bare.url;

  const enginePid = engine.child.pid!;
  if (PIN) {
    await pin(enginePid, 1);
    await pin(gateway.child.pid!, 0);
    await pin(unjoined.child.pid!, 0);
    await pin(bare.child.pid!, 0);
    await pin(process.pid, 0);
  }
  const engineConfig = JSON.stringify({ vectors: { size: DIM, distance: 'Cosine' } });
  const engineName = (name: string) => `t_live_${accountId.replaceAll('-', '')}_${name}`;
  const createDirect = (name: string) =>
    send(`${engine.url}/collections/${name}`, 'PUT', engineConfig, engine.apiKey);
  /** The ways to the engine: the bare proxy forwards engine paths as they are. */
  const targets: Record<TargetName, Target> = {
    direct: {
      pids: { engine: enginePid, gateway: enginePid },
      create: createDirect,
      upsert: (name, bodies) => ({
        method: 'PUT',
        url: `${engine.url}/collections/${name}/points?wait=true`,
        bodies,
        key: engine.apiKey,
      }),
      search: (bodies) => ({
        method: 'POST',
        url: `${engine.url}/collections/${engineName('search')}/points/search`,
        bodies,
        key: engine.apiKey,
      }),
      engineName: (name) => name,
    },
    gateway: {
      pids: { engine: enginePid, gateway: gateway.child.pid! },
      create: (name) =>
        send(
          `${gatewayUrl}/api/v1/collections`,
          'POST',
          JSON.stringify({ name, vectors: { size: DIM, distance: 'cosine' } }),
          key,
        ),
      upsert: (name, bodies) => ({
        method: 'PUT',
        url: `${gatewayUrl}/api/v1/collections/${name}/points?wait=true`,
        bodies,
        key,
      }),
      search: (bodies) => ({
        method: 'POST',
        url: `${gatewayUrl}/api/v1/collections/search/points/search`,
        bodies,
        key,
      }),
      engineName,
    },
    unjoined: {
      pids: { engine: enginePid, gateway: unjoined.child.pid! },
      create: () => Promise.reject(new Error('the unjoined gateway only searches')),
      upsert: () => {
        throw new Error('the unjoined gateway only searches');
      },
      search: (bodies) => ({
        method: 'POST',
        url: `${unjoined!.url}/api/v1/collections/search/points/search`,
        bodies,
        key,
      }),
      engineName,
    },
    bare: {
      pids: { engine: enginePid, gateway: bare.child.pid! },
      create: createDirect,
      upsert: (name, bodies) => ({
        method: 'PUT',
        url: `${bareUrl}/collections/${name}/points?wait=true`,
        bodies,
      }),
      search: (bodies) => ({
        method: 'POST',
        url: `${bareUrl}/collections/${engineName('search')}/points/search`,
        bodies,
      }),
      engineName: (name) => name,
    },
  };
  const names = ['direct', 'gateway', 'bare'] as const;
  const searchNames: TargetName[] = ['direct', 'gateway', 'unjoined', 'bare'];
  /** Round r runs the targets starting at a different one, so none always goes first. */
  const order = <T>(r: number, of: readonly T[]) => of.map((_, k) => of[(r + k) % of.length]!);

  const batches = Math.ceil(upsertPoints / BATCH);
  // Upsert rounds cycle ids below the index threshold: an index build that starts part-way
  // through a phase runs on the same cores and swung single rounds between 0.6 and 1.2.
  const roundBatches = Math.min(batches, Math.floor((INDEX_THRESHOLD - 1) / BATCH));
  const batch = (b: number) => ({
    points: Array.from({ length: BATCH }, (_, k) => {
      const id = b * BATCH + k;
      return { id, vector: vector(id), payload: { group: id % 10, title: `point ${id}` } };
    }),
  });
  const bodies = Array.from({ length: batches }, (_, b) => JSON.stringify(batch(b)));

  // The searched collection: written through the gateway, so its points carry the attested keys.
  await targets.gateway.create('search');
  for (const body of bodies) {
    const load = targets.gateway.upsert('search', [body]);
    await send(load.url, load.method, body, load.key);
  }
  await settled(engine, engineName('search'));
  const roundBodies = bodies.slice(0, roundBatches);
  const warmSeconds = Math.min(2, seconds);

  // Warm every upsert path (connections, JIT, the gateway's buffer pool) before timing; one
  // request first, through the node client, so a broken path fails with its answer.
  for (const name of names) {
    const target = targets[name];
    await target.create('warm-up');
    const load = target.upsert('warm-up', roundBodies);
    await send(load.url, load.method, roundBodies[0]!, load.key);
    await phase(target.pids, load, warmSeconds);
    await send(
      `${engine.url}/collections/${target.engineName('warm-up')}`,
      'DELETE',
      '',
      engine.apiKey,
    );
  }

  // Upserts: every round writes a new collection per target (an empty one, as the first round found).
  const upserts = { direct: [] as Phase[], gateway: [] as Phase[], bare: [] as Phase[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of order(r, names)) {
      const target = targets[name];
      const collection = `up-${name}-${r}`;
      await target.create(collection);
      upserts[name].push(await phase(target.pids, target.upsert(collection, roundBodies)));
      await settled(engine, target.engineName(collection));
      // Dropped at once: every collection the engine holds makes its garbage collections longer.
      await send(
        `${engine.url}/collections/${target.engineName(collection)}`,
        'DELETE',
        '',
        engine.apiKey,
      );
    }
  }

  const queries = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({ vector: vector(i * 7 + 3), limit: 10, with_payload: true }),
  );
  // Warm every path (connections, JIT) before timing.
  for (const name of searchNames) {
    const load = targets[name].search(queries);
    await send(load.url, load.method, queries[0]!, load.key);
    await phase(targets[name].pids, load, warmSeconds);
  }
  const searchRuns: Record<TargetName, Phase[]> = {
    direct: [],
    gateway: [],
    unjoined: [],
    bare: [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    for (const name of order(r, searchNames)) {
      searchRuns[name].push(await phase(targets[name].pids, targets[name].search(queries)));
    }
  }

  console.log(
    `points: ${upsertPoints} x ${DIM} dims searched, upsert batches of ${BATCH} with ids cycling over ${roundBatches * BATCH} (below the index threshold), ${seconds} s per phase, concurrency ${concurrency}, load from ${LOADGEN === 'wrk' ? 'wrk' : 'a node:http client'}, ${PIN ? 'engine on CPU 1, gateway and load generator on CPU 0' : 'all processes on all CPUs'}`,
  );
  console.log(
    'the bare proxy (bench/support/bare-proxy.ts) is the floor: a Node hop with no checks',
  );
  console.log(
    `the gateway ${envBool('SVC_VECTOR_COALESCE', true) ? 'joins' : 'does not join (SVC_VECTOR_COALESCE=false)'} concurrent searches of a collection into batch requests; a second gateway that never does is measured beside it on searches; the bare proxy never does`,
  );
  report('upsert', 'points/s', BATCH, upserts);
  report('search', 'req/s   ', 1, searchRuns);

  // The large streaming upsert: one request of 10,000 points.
  await targets.gateway.create('large');
  const before = await peakRssMb(gateway.child.pid!);
  const started = performance.now();
  let sent = 0;
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      `${gatewayUrl}/api/v1/collections/large/points?wait=true`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    const body = largeBody(10_000, largeMb);
    body.on('data', (chunk: string) => (sent += Buffer.byteLength(chunk)));
    body.pipe(req);
  });
  const elapsed = (performance.now() - started) / 1000;
  const after = await peakRssMb(gateway.child.pid!);
  console.log(
    `large upsert: ${(sent / (1024 * 1024)).toFixed(0)} MB in ${elapsed.toFixed(1)} s (${(sent / (1024 * 1024) / elapsed).toFixed(0)} MB/s), status ${status}; gateway peak RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after`,
  );
} finally {
  await stopServer(gateway);
  await stopServer(unjoined);
  await stopServer(bare);
  await engine.dispose();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
