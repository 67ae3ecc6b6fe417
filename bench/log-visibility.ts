/**
 * How soon a line an agent prints can be read through `GET
 * /api/v1/agents/{agent}/logs`, and whether a burst loses any, on the real
 * single-machine platform (control plane, API server, operator with the local
 * driver, a Python job in its sandbox). One run of a job prints paced lines
 * (each carrying the time it was printed), then a burst at a set rate; a
 * follower reads the log with the keyset cursor (`after_id`) as a user's
 * `logs --follow` would, and the bench prints the visibility latency of the
 * paced lines (p50, p99, max) and how many burst lines arrived.
 *
 *   npx tsx bench/log-visibility.ts [paced=200] [burstPerSecond=10000] [burstSeconds=2]
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScratchPlatform } from '../hack/platform/scratch.js';
import { createBenchAccount } from './support/bench-account.js';

const [paced = 200, burstPerSecond = 10_000, burstSeconds = 2] = process.argv.slice(2).map(Number);

const MAIN_PY = `
import sys, time
paced, rate, seconds = ${paced}, ${burstPerSecond}, ${burstSeconds}
for i in range(paced):
    print(f"paced {i} {time.time() * 1000:.1f}", flush=True)
    time.sleep(0.02)
total = rate * seconds
start = time.time()
for i in range(total):
    print(f"burst {i}", flush=(i % 100 == 99))
    if i % 100 == 99:
        ahead = start + (i + 1) / rate - time.time()
        if ahead > 0:
            time.sleep(ahead)
print("done", flush=True)
`;

const platform = await startScratchPlatform('bench-logs');
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-logs-'));
try {
  const { key } = await createBenchAccount(platform.mongoUri);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const api = async <T>(method: string, path: string, body?: string | Buffer, type?: string) => {
    const res = await fetch(`${platform.apiUrl}${path}`, {
      method,
      headers: type ? { ...headers, 'content-type': type } : headers,
      body,
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };

  await writeFile(join(dir, 'main.py'), MAIN_PY);
  await writeFile(join(dir, 'svc.yaml'), 'runtime: python3.11\ntype: job\nentrypoint: main.py\n');
  await api('POST', '/api/v1/agents', JSON.stringify({ name: 'bench-logs' }));
  const archive = execFileSync('tar', ['czf', '-', '-C', dir, '.']);
  const deployment = await api<{ id: string }>(
    'POST',
    '/api/v1/agents/bench-logs/deploy',
    archive,
    'application/gzip',
  );
  for (;;) {
    const { state } = await api<{ state: string }>('GET', `/api/v1/deployments/${deployment.id}`);
    if (state === 'active') break;
    if (state === 'failed') throw new Error('deploy failed');
    await new Promise((r) => setTimeout(r, 100));
  }

  // The agent takes its new version a moment after the deployment turns active (409 until then).
  for (let tries = 0; ; tries++) {
    const res = await fetch(`${platform.apiUrl}/api/v1/agents/bench-logs/run`, {
      method: 'POST',
      headers,
      body: '{}',
    });
    if (res.ok) break;
    if (res.status !== 409 || tries > 100) throw new Error(`run answered ${res.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const latencies: number[] = [];
  let burst = 0;
  let afterId = 0;
  const deadline = Date.now() + 120_000;
  for (let done = false; !done;) {
    if (Date.now() > deadline) throw new Error('the run did not finish printing in 120 s');
    const page = await api<{
      items: Array<{ message: string; stream: string }>;
      next_after_id: number;
      has_more: boolean;
    }>('GET', `/api/v1/agents/bench-logs/logs?after_id=${afterId}&limit=1000&stream=stdout`);
    const now = Date.now();
    for (const { message } of page.items) {
      if (message.startsWith('paced ')) latencies.push(now - Number(message.split(' ')[2]));
      else if (message.startsWith('burst ')) burst += 1;
      else if (message === 'done') done = true;
    }
    afterId = page.next_after_id;
    if (!page.has_more) await new Promise((r) => setTimeout(r, 20));
  }
  const sorted = latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  console.log(
    `log visibility bench: ${paced} paced lines, then ${burstPerSecond}/s for ${burstSeconds} s`,
  );
  console.log(
    `  printed to readable: p50 ${pct(0.5)?.toFixed(0)} ms, p99 ${pct(0.99)?.toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms (${sorted.length} lines)`,
  );
  console.log(`  burst: ${burst} of ${burstPerSecond * burstSeconds} lines readable`);
} finally {
  await platform.stop();
  await rm(dir, { recursive: true, force: true });
}
