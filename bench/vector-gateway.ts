/**
 * Search and upsert throughput through the vector gateway against the engine
 * directly, in the same run on the same engine (the ratio is what matters:
 * the goal is gateway/direct >= 0.9), and the gateway's peak RSS while it
 * streams one large upsert (10,000 points with ~50 KB payloads each, so a
 * 500 MB body at the default size). The gateway runs as its own process;
 * peak RSS is its VmHWM from /proc. The caller is an enterprise account, so
 * the rate limit does not cap the numbers.
 *
 *   npx tsx bench/vector-gateway.ts [searches=3000] [upsertPoints=20000] [largeMb=500] [concurrency=16]
 *
 * Printed on 2026-11-21, a 2-core VM shared with other work (load average
 * 1.5-4), bench client, gateway and engine all on those two cores:
 *
 *   points: 20000 x 128 dims, upsert batches of 500, concurrency 16
 *   upsert  direct    29325 points/s   gateway    12519 points/s   ratio 0.43
 *   search  direct     2704 req/s      gateway      960 req/s      ratio 0.36
 *   large upsert: 500 MB in 10.8 s (46 MB/s), status 200; gateway peak RSS 241 MB before, 253 MB after
 *
 * Ratios across runs on that machine ranged 0.30-0.66 (upsert) and 0.24-0.58
 * (search): the goal of 0.9 is not met there. Every proxied request costs the
 * gateway's CPU on the same two cores the engine needs, so the ratio measures
 * CPU sharing as much as gateway overhead; run it where the gateway has cores
 * of its own before drawing conclusions. Peak RSS is V8's: with
 * GATEWAY_NODE_ARGS=--max-old-space-size=160 the same 500 MB upsert succeeds
 * at a 288 MB peak (with 16 MB engine batches; batches are 4 MB now).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { AccountService } from '../apiserver/src/accounts/account-service.js';
import { collections, ensureIndexes } from '../apiserver/src/store/database.js';
import { startControlPlane } from '../hack/control-plane/index.js';
import { startEngine } from '../test/engine/support/engine-process.js';

const [searches = 3000, upsertPoints = 20_000, largeMb = 500, concurrency = 16] = process.argv
  .slice(2)
  .map(Number);
const DIM = 128;
const BATCH = 500;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function vector(i: number): number[] {
  return Array.from({ length: DIM }, (_, d) => Math.sin(i * 31 + d));
}

/** Runs `total` calls, `concurrency` at a time; returns calls per second. */
async function rate(total: number, call: (i: number) => Promise<Response>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const res = await call(i);
        const text = await res.text();
        if (!res.ok) throw new Error(`call ${i} answered ${res.status}: ${text.slice(0, 200)}`);
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

function json(method: string, body: unknown, key?: string): RequestInit {
  return {
    method,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: JSON.stringify(body),
  };
}

async function peakRssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
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
const cp = await startControlPlane({ dir, durable: false, controllerManager: false });
const engine = await startEngine({ env: { SVC_ENGINE_MAX_BODY_MB: '64' } });
let gateway: ReturnType<typeof spawn> | undefined;
try {
  const mongoUri = new URL(cp.mongoUri);
  mongoUri.pathname = '/svc';
  const mongo = new MongoClient(mongoUri.toString());
  const c = collections(mongo.db());
  await ensureIndexes(c);
  const accounts = new AccountService(c, 'local');
  const account = await accounts.createAccount({ name: 'bench', tier: 'enterprise' });
  const { text: key } = await accounts.createKey({ accountId: account._id, environment: 'live' });
  await mongo.close();

  gateway = spawn(
    process.execPath,
    [
      // e.g. GATEWAY_NODE_ARGS=--cpu-prof to profile the gateway.
      ...(process.env.GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean),
      '--import',
      'tsx',
      join(root, 'bench', 'vector-gateway-server.ts'),
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        MONGODB_URI: mongoUri.toString(),
        SVC_ENGINE_URL: engine.url,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const gatewayUrl = await new Promise<string>((resolve, reject) => {
    createInterface({ input: gateway!.stdout! }).on('line', (line) => {
      if (line.startsWith('{"ready"')) resolve((JSON.parse(line) as { url: string }).url);
    });
    gateway!.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });

  const create = await fetch(
    `${gatewayUrl}/api/v1/collections`,
    json('POST', { name: 'bench', vectors: { size: DIM, distance: 'cosine' } }, key),
  );
  if (create.status !== 201) throw new Error(`create: ${create.status} ${await create.text()}`);
  const engineName = `t_live_${account._id.replaceAll('-', '')}_bench`;
  await fetch(
    `${engine.url}/collections/direct`,
    json('PUT', { vectors: { size: DIM, distance: 'Cosine' } }),
  );

  const batches = Math.ceil(upsertPoints / BATCH);
  const batch = (b: number) => ({
    points: Array.from({ length: BATCH }, (_, k) => {
      const id = b * BATCH + k;
      return { id, vector: vector(id), payload: { group: id % 10, title: `point ${id}` } };
    }),
  });
  const bodies = Array.from({ length: batches }, (_, b) => JSON.stringify(batch(b)));
  const send = (url: string, body: string, auth?: string) =>
    fetch(url, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
      },
      body,
    });
  // Alternate the order so neither side always runs on a colder engine.
  const upDirect = await rate(batches, (b) =>
    send(`${engine.url}/collections/direct/points?wait=true`, bodies[b]!),
  );
  const upGateway = await rate(batches, (b) =>
    send(`${gatewayUrl}/api/v1/collections/bench/points?wait=true`, bodies[b]!, key),
  );

  const query = (i: number) => ({ vector: vector(i * 7 + 3), limit: 10, with_payload: true });
  // Warm both paths (connections, JIT) before timing.
  await rate(200, (i) =>
    fetch(`${engine.url}/collections/${engineName}/points/search`, json('POST', query(i))),
  );
  await rate(200, (i) =>
    fetch(`${gatewayUrl}/api/v1/collections/bench/points/search`, json('POST', query(i), key)),
  );
  const searchGateway = await rate(searches, (i) =>
    fetch(`${gatewayUrl}/api/v1/collections/bench/points/search`, json('POST', query(i), key)),
  );
  const searchDirect = await rate(searches, (i) =>
    fetch(`${engine.url}/collections/${engineName}/points/search`, json('POST', query(i))),
  );

  console.log(
    `points: ${upsertPoints} x ${DIM} dims, upsert batches of ${BATCH}, concurrency ${concurrency}`,
  );
  console.log(
    `upsert  direct ${(upDirect * BATCH).toFixed(0).padStart(8)} points/s   gateway ${(upGateway * BATCH).toFixed(0).padStart(8)} points/s   ratio ${(upGateway / upDirect).toFixed(2)}`,
  );
  console.log(
    `search  direct ${searchDirect.toFixed(0).padStart(8)} req/s      gateway ${searchGateway.toFixed(0).padStart(8)} req/s      ratio ${(searchGateway / searchDirect).toFixed(2)}`,
  );

  // The large streaming upsert: one request of 10,000 points.
  await fetch(
    `${gatewayUrl}/api/v1/collections`,
    json('POST', { name: 'large', vectors: { size: DIM, distance: 'dot' } }, key),
  );
  const before = await peakRssMb(gateway.pid!);
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
  const seconds = (performance.now() - started) / 1000;
  const after = await peakRssMb(gateway.pid!);
  console.log(
    `large upsert: ${(sent / (1024 * 1024)).toFixed(0)} MB in ${seconds.toFixed(1)} s (${(sent / (1024 * 1024) / seconds).toFixed(0)} MB/s), status ${status}; gateway peak RSS ${before.toFixed(0)} MB before, ${after.toFixed(0)} MB after`,
  );
} finally {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  await engine.dispose();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
