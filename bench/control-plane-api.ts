/**
 * Throughput and latency of the control plane's agent routes on one machine:
 * `POST /api/v1/agents` and `GET /api/v1/agents/{name}`, against the real API
 * server process, kube-apiserver, etcd and FerretDB, all on loopback. The
 * caller is an enterprise account, so the rate limit does not cap the numbers
 * (an account on a plan with a budget pays one more database round trip).
 * Beside them, the floor: the same number of reads of a bare Koa handler
 * behind the same authentication (bench/support/bare-auth-server.ts), and the
 * GET's throughput as a share of it.
 *
 *   npx tsx bench/control-plane-api.ts [creates=300] [reads=3000] [concurrency=16]
 *
 * The load comes from wrk (bench/support/wrk.ts; installed with apt-get when
 * missing), a native load generator that takes a small share of the cores the
 * measured processes need: `concurrency` keep-alive connections, the POSTs for
 * SECONDS_PER_PHASE / 2 (each body a new name), the GETs and the bare handler
 * for SECONDS_PER_PHASE each (default 10), one agent read over and over. `LOADGEN=node` uses the Node client of earlier runs
 * instead (fetch, `creates` and `reads` requests), whose own CPU per request
 * is close to what the server spends, so it measures the two together.
 *
 * Each row also gives the CPU the server process spent per request (from
 * /proc, user and system, every thread): on shared cores the throughput moves
 * with whatever else runs, the CPU a request costs much less. A second line
 * splits each phase's CPU per request among the API server, kube-apiserver,
 * etcd, FerretDB and kube-controller-manager, beside the whole machine's (which
 * also counts wrk and anything else running). Both servers run with the API
 * server's Node flags (common/node-flags.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../hack/control-plane/index.js';
import { createBenchAccount } from './support/bench-account.js';
import { freePort } from '../common/ports.js';
import { httpOk } from '../hack/lib/probe.js';
import { ProcessGroup } from '../common/processes.js';
import { generateSecret } from '../common/secrets.js';
import { repoRoot } from '../hack/lib/paths.js';
import { readyLine, startReady } from '../common/component-starter.js';
import { cpuSeconds, machineBusySeconds } from './support/proc.js';
import { ensureWrk, runWrk } from './support/wrk.js';
import { API_SERVER_NODE_FLAGS } from '../common/node-flags.js';

const [creates = 300, reads = 3000, concurrency = 16] = process.argv.slice(2).map(Number);
const SECONDS = Number(process.env.SECONDS_PER_PHASE ?? 10);
const useWrk = process.env.LOADGEN !== 'node' && ensureWrk();

/** A wrk run's numbers in the shape `report` prints. */
interface Measured {
  count: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Runs `total` requests, `concurrency` at a time; returns per-request latencies (ms) and wall time (s). */
async function load(
  total: number,
  request: (i: number) => Promise<Response>,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`request ${i} answered ${res.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** The Node client's latencies as counts and percentiles. */
function measured({ latencies, seconds }: { latencies: number[]; seconds: number }): Measured {
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { count: sorted.length, seconds, p50: pct(50), p99: pct(99) };
}

/** Prints one row; returns the throughput and the server's CPU per request (us). */
function report(
  name: string,
  { count, seconds, p50, p99 }: Measured,
  cpu: number,
): { rate: number; cpuUs: number } {
  const cpuUs = (cpu / count) * 1e6;
  console.log(
    `${name.padEnd(28)} ${String(count).padStart(6)} req  ${(count / seconds).toFixed(0).padStart(6)} req/s  p50 ${p50.toFixed(1)} ms  p99 ${p99.toFixed(1)} ms  server CPU ${cpuUs.toFixed(0)} us/req`,
  );
  return { rate: count / seconds, cpuUs };
}

/**
 * Runs `phase` and prints its row, with the CPU per request of the first of `processes` (the
 * server measured), and a line of where the CPU went meanwhile: each of `processes` and the
 * whole machine, per request. Returns the row's throughput and server CPU per request.
 */
async function measure(
  name: string,
  processes: readonly { name: string; pid: number }[],
  phase: () => Promise<Measured>,
): Promise<{ rate: number; cpuUs: number }> {
  const read = () =>
    Promise.all([machineBusySeconds(), ...processes.map((p) => cpuSeconds(p.pid))]);
  const before = await read();
  const measuredPhase = await phase();
  const after = await read();
  const spent = (i: number) => after[i]! - before[i]!;
  const perRequest = (i: number) => ((spent(i) / measuredPhase.count) * 1e6).toFixed(0);
  const row = report(name, measuredPhase, spent(1));
  console.log(
    `  CPU per request (us): ${processes.map((p, i) => `${p.name} ${perRequest(i + 1)}`).join(', ')}; whole machine ${perRequest(0)}`,
  );
  return row;
}

/** wrk's run of one request (bodies cycled) in the shape `report` prints. */
async function wrkLoad(
  method: string,
  url: string,
  key: string,
  bodies: string[],
  seconds: number,
): Promise<Measured> {
  const run = await runWrk({ method, url, key, bodies }, { seconds, connections: concurrency });
  return { count: run.requests, seconds: run.seconds, p50: run.p50Ms, p99: run.p99Ms };
}

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-api-'));
const cp = await startControlPlane({ dir, durable: true });
const services = new ProcessGroup(join(dir, 'logs'));
try {
  const { mongoUri, key } = await createBenchAccount(cp.mongoUri);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const api = await startReady(services, {
    name: 'apiserver',
    command: process.execPath,
    args: [
      ...API_SERVER_NODE_FLAGS,
      '--import',
      'tsx',
      join(repoRoot, 'apiserver', 'src', 'main.ts'),
    ],
    cwd: repoRoot,
    env: {
      ...process.env,
      SVC_API_PORT: String(port),
      // Free ports for the other front doors too, so the bench runs beside npm start.
      SVC_VECTORS_PORT: '0',
      SVC_EDGE_PORT: '0',
      SVC_METRICS_PORT: '-1',
      MONGODB_URI: mongoUri,
      KUBECONFIG: cp.kubeconfigPath,
      SVC_INTERNAL_SECRET: generateSecret(),
      // No engine runs here; the API server still requires its key to start.
      SVC_ENGINE_API_KEY: generateSecret(),
      SVC_LOG_LEVEL: 'warn',
    },
    readyWhen: { probe: () => httpOk(`${base}/readiness`) },
  });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  console.log(
    useWrk
      ? `control-plane API bench (wrk): ${creates} creates, reads for ${SECONDS} s, ${concurrency} connections`
      : `control-plane API bench (node client): ${creates} creates, ${reads} reads, concurrency ${concurrency}`,
  );
  // wrk cycles its bodies: enough names that none repeats (a 409) within its POST phase.
  const names = Array.from({ length: useWrk ? 50_000 : creates }, (_, i) =>
    JSON.stringify({ name: `bench-${i}` }),
  );
  const apiPid = api.proc.pid;
  // Warm-up, not measured: the server's first requests load and compile the modules they use.
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${base}/api/v1/agents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `warm-${i}` }),
    });
    if (!res.ok) throw new Error(`warm-up POST answered ${res.status}`);
    await fetch(`${base}/api/v1/agents/warm-${i}`, { headers }).then((r) => r.arrayBuffer());
  }
  // The server measured first, then the components it writes through.
  const components = [
    { name: 'apiserver', pid: apiPid },
    ...cp.processes.processes.filter((p) => p.pid > 0),
  ];
  await measure('POST /api/v1/agents', components, async () =>
    useWrk
      ? await wrkLoad('POST', `${base}/api/v1/agents`, key, names, Math.max(1, SECONDS / 2))
      : measured(
          await load(creates, (i) =>
            fetch(`${base}/api/v1/agents`, { method: 'POST', headers, body: names[i] }),
          ),
        ),
  );
  // The agent wrk reads (its POST phase may skip a name: wrk builds one request to check it).
  const read = await fetch(`${base}/api/v1/agents`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'bench-read' }),
  });
  if (!read.ok) throw new Error(`POST bench-read answered ${read.status}: ${await read.text()}`);
  const got = await measure('GET /api/v1/agents/{name}', components, async () =>
    useWrk
      ? await wrkLoad('GET', `${base}/api/v1/agents/bench-read`, key, [''], SECONDS)
      : measured(
          await load(reads, (i) =>
            fetch(`${base}/api/v1/agents/bench-${i % creates}`, { headers }),
          ),
        ),
  );
  const bare = await startReady(services, {
    name: 'bare-auth-server',
    command: process.execPath,
    args: [
      ...API_SERVER_NODE_FLAGS,
      '--import',
      'tsx',
      join(repoRoot, 'bench', 'support', 'bare-auth-server.ts'),
    ],
    cwd: repoRoot,
    env: { ...process.env, MONGODB_URI: mongoUri },
    readyWhen: { line: readyLine('bare') },
  });
  const floor = await measure(
    'bare Koa handler + auth',
    [{ name: 'bare', pid: bare.proc.pid }, ...components],
    async () =>
      useWrk
        ? await wrkLoad('GET', `${bare.announced}/bare`, key, [''], SECONDS)
        : measured(await load(reads, () => fetch(`${bare.announced}/bare`, { headers }))),
  );
  console.log(
    `GET /agents/{name} throughput / bare handler: ${(got.rate / floor.rate).toFixed(2)}; bare CPU per request / GET's: ${(floor.cpuUs / got.cpuUs).toFixed(2)}`,
  );
} finally {
  await services.stopAll();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
