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

const [creates = 300, reads = 3000, concurrency = 16] = process.argv.slice(2).map(Number);

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

function report(
  name: string,
  { latencies, seconds }: { latencies: number[]; seconds: number },
): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]?.toFixed(1);
  console.log(
    `${name.padEnd(28)} ${String(sorted.length).padStart(5)} req  ${(sorted.length / seconds).toFixed(0).padStart(6)} req/s  p50 ${pct(50)} ms  p99 ${pct(99)} ms`,
  );
  return sorted.length / seconds;
}

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-api-'));
const cp = await startControlPlane({ dir, durable: true });
const services = new ProcessGroup(join(dir, 'logs'));
try {
  const { mongoUri, key } = await createBenchAccount(cp.mongoUri);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await startReady(services, {
    name: 'apiserver',
    command: process.execPath,
    args: ['--import', 'tsx', join(repoRoot, 'apiserver', 'src', 'main.ts')],
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
    `control-plane API bench: ${creates} creates, ${reads} reads, concurrency ${concurrency}`,
  );
  report(
    'POST /api/v1/agents',
    await load(creates, (i) =>
      fetch(`${base}/api/v1/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `bench-${i}` }),
      }),
    ),
  );
  const got = report(
    'GET /api/v1/agents/{name}',
    await load(reads, (i) => fetch(`${base}/api/v1/agents/bench-${i % creates}`, { headers })),
  );
  const bare = await startReady(services, {
    name: 'bare-auth-server',
    command: process.execPath,
    args: ['--import', 'tsx', join(repoRoot, 'bench', 'support', 'bare-auth-server.ts')],
    cwd: repoRoot,
    env: { ...process.env, MONGODB_URI: mongoUri },
    readyWhen: { line: readyLine('bare') },
  });
  const floor = report(
    'bare Koa handler + auth',
    await load(reads, () => fetch(`${bare.announced}/bare`, { headers })),
  );
  console.log(`GET /agents/{name} throughput / bare handler: ${(got / floor).toFixed(2)}`);
} finally {
  await services.stopAll();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
