/**
 * The single-machine platform, measured as a user meets it: the cold deploy
 * time of examples/python-service (POST deploy to state active, and to its
 * first answer through the edge), and the latency of a request that wakes it
 * after it scaled to zero (idle_timeout_minutes: 1, so this waits about a
 * minute for the scale-down). Everything real: control plane, API server,
 * operator with the local driver, uvicorn. WAKE_SAMPLES agents (default 9) are
 * deployed and scale to zero together, then each is woken alone: p50 and p99
 * of those wakes.
 *
 *   npx tsx bench/local-platform.ts
 *   WAKE_SAMPLES=20 npx tsx bench/local-platform.ts
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { MongoClient } from 'mongodb';
import { API_GROUP, API_VERSION, PLURALS, type Agent } from '../crds/src/index.js';
import { AccountService } from '../apiserver/src/accounts/account-service.js';
import { collections } from '../apiserver/src/store/database.js';
import { repoRoot } from '../hack/lib/paths.js';
import { startScratchPlatform } from '../hack/platform/scratch.js';

const DOMAIN = 'agents.localhost';
/** How many agents are woken from zero (one idle minute for all of them). */
const WAKE_SAMPLES = Number(process.env.WAKE_SAMPLES ?? 9);

function viaEdge(edgePort: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: edgePort, path: '/', headers: { host } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// etcd fsyncs, as under npm start: the deploy time is a user's.
const platform = await startScratchPlatform('bench-local', { agentDomain: DOMAIN, durable: true });
const edgePort = Number(new URL(platform.edgeUrl).port);
try {
  const mongo = new MongoClient(platform.mongoUri);
  const accounts = new AccountService(collections(mongo.db()), 'local');
  const account = await accounts.createAccount({ name: 'bench', tier: 'enterprise' });
  const { text: key } = await accounts.createKey({ accountId: account._id, environment: 'live' });
  await mongo.close();
  const headers = { authorization: `Bearer ${key}` };
  const api = async <T>(
    method: string,
    path: string,
    body?: string | Buffer,
    type = 'application/json',
  ): Promise<T> => {
    const res = await fetch(`${platform.apiUrl}${path}`, {
      method,
      headers: { ...headers, 'content-type': type },
      body,
    });
    return (await res.json()) as T;
  };

  const archive = execFileSync('tar', [
    'czf',
    '-',
    '-C',
    join(repoRoot, 'examples', 'python-service'),
    '.',
  ]);

  /** Creates and deploys one agent; the times to active and to its first answer through the edge. */
  async function deployOne(name: string) {
    await api('POST', '/api/v1/agents', JSON.stringify({ name, idle_timeout_minutes: 1 }));
    const t0 = performance.now();
    const deployment = await api<{ id: string }>(
      'POST',
      `/api/v1/agents/${name}/deploy`,
      archive,
      'application/gzip',
    );
    let state = '';
    while (state !== 'active') {
      state = (
        await api<{ state: string; error_message: string | null }>(
          'GET',
          `/api/v1/deployments/${deployment.id}`,
        )
      ).state;
      if (state === 'failed') throw new Error('deploy failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    const tActive = performance.now();
    // The agent shows its address a moment after its deployment turns active.
    let agent = await api<{ id: string; url: string | null }>('GET', `/api/v1/agents/${name}`);
    while (!agent.url) {
      await new Promise((r) => setTimeout(r, 50));
      agent = await api<{ id: string; url: string | null }>('GET', `/api/v1/agents/${name}`);
    }
    const host = new URL(agent.url).host;
    while ((await viaEdge(edgePort, host)) !== 200) await new Promise((r) => setTimeout(r, 50));
    return { name, id: agent.id, host, active: tActive - t0, served: performance.now() - t0 };
  }

  // Several agents, deployed one after another, scale to zero together; each is then woken
  // alone, so one idle minute gives WAKE_SAMPLES wakes.
  const agents = [];
  for (let i = 0; i < WAKE_SAMPLES; i++) agents.push(await deployOne(`bench-py-${i}`));
  const [first] = agents;
  console.log(`local platform bench (examples/python-service)`);
  console.log(
    `  cold deploy: active after ${(first!.active / 1000).toFixed(2)} s, first answer through the edge after ${(first!.served / 1000).toFixed(2)} s`,
  );

  const kc = new KubeConfig();
  kc.loadFromFile(platform.controlPlane.kubeconfigPath);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const namespace = `svc-live-${account._id}`;
  const waitStart = performance.now();
  for (const agent of agents) {
    for (;;) {
      const cr = (await custom.getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace,
        plural: PLURALS.Agent,
        name: agent.id,
      })) as Agent;
      if (!cr.status?.endpoint) break;
      if (performance.now() - waitStart > 240_000) throw new Error('never scaled to zero');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  console.log(
    `  ${agents.length} agents scaled to zero ${((performance.now() - waitStart) / 1000).toFixed(0)} s after the first answers (idle timeout 1 min)`,
  );
  const wakes: { name: string; start: number; end: number }[] = [];
  for (const agent of agents) {
    const start = Date.now();
    const status = await viaEdge(edgePort, agent.host);
    if (status !== 200) throw new Error(`wake answered ${status}`);
    wakes.push({ name: agent.name, start, end: Date.now() });
    // Each wake alone: the service just started settles before the next.
    await new Promise((r) => setTimeout(r, 500));
  }
  const quantiles = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
    return `p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms`;
  };
  const totals = wakes.map((w) => w.end - w.start);
  console.log(
    `  wake from zero through the edge, ${wakes.length} samples: ${quantiles(totals)} (${totals.join(', ')} ms)`,
  );

  // The stages, from the service's own start line ("answering N ms after its process
  // started", timestamped by the operator on this machine's clock).
  await new Promise((r) => setTimeout(r, 2000)); // the log shipper's batch
  const stages = {
    toSpawn: [] as number[],
    spawnToReady: [] as number[],
    readyToAnswer: [] as number[],
  };
  for (const wake of wakes) {
    const since = new Date(wake.start).toISOString();
    const page = await api<{ items: { timestamp: string; message: string }[] }>(
      'GET',
      `/api/v1/agents/${wake.name}/logs?since=${encodeURIComponent(since)}&limit=100`,
    );
    const line = page.items.find((l) =>
      /answering \d+ ms after its process started/.test(l.message),
    );
    if (!line) continue;
    const took = Number(/answering (\d+) ms/.exec(line.message)![1]);
    const ready = new Date(line.timestamp).getTime();
    stages.toSpawn.push(ready - took - wake.start);
    stages.spawnToReady.push(took);
    stages.readyToAnswer.push(wake.end - ready);
  }
  console.log(`  its stages (${stages.spawnToReady.length} samples with a start line):`);
  console.log(
    `    request to the service's start (edge mark, operator):          ${quantiles(stages.toSpawn)}`,
  );
  console.log(
    `    start to answering /health (sandbox, interpreter, runner, app):  ${quantiles(stages.spawnToReady)}`,
  );
  console.log(
    `    ready to the answer (status write, the edge seeing it, proxy):  ${quantiles(stages.readyToAnswer)}`,
  );
} finally {
  await platform.stop();
}
