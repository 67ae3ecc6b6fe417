/**
 * The single-machine platform as `npm start` runs it (startPlatform, every
 * process real, on free ports in a temporary directory; one boot for the whole
 * file, as it is heavy):
 * - the README's walkthrough and vector-plane examples work as written, run
 *   from its own code blocks against this platform's `.dev/env`;
 * - it keeps its components running: a component killed with SIGKILL is
 *   restarted on the same port with the same data, the log and
 *   `/api/v1/health` say so, and for the engine, every point acknowledged
 *   before, during and after the kill is still there;
 * - the control plane serves the web dashboard, and the vector plane answers
 *   the dashboard's origin's cross-origin calls;
 * - the API server, the operator and the engine each serve Prometheus
 *   metrics that the official Python client's text-format parser reads, with
 *   route templates (never names or keys) as labels.
 */
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { watch } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ComponentStatus } from '../../common/component-status.js';
import { repoRoot } from '../../hack/lib/paths.js';
import { bootstrapKey } from '../../hack/platform/bootstrap.js';
import { writeEnvFile } from '../../hack/platform/env-file.js';
import { startScratchPlatform, type ScratchPlatform } from '../../hack/platform/scratch.js';
import { waitFor, type ChangeSource } from '../harness/wait.js';

let dir: string;
let platform: ScratchPlatform;
let key: string;

beforeAll(async () => {
  platform = await startScratchPlatform('platform');
  dir = platform.dir;
  key = (await bootstrapKey(platform.mongoUri, undefined)).key;
}, 240_000);

afterAll(async () => {
  await platform?.stop();
}, 60_000);

function pidOf(name: string): number {
  const proc = [...platform.services.processes, ...platform.controlPlane.processes.processes].find(
    (p) => p.name === name,
  );
  if (!proc) throw new Error(`no ${name} process`);
  return proc.pid;
}

async function health(): Promise<Record<string, ComponentStatus>> {
  const res = await fetch(`${platform.apiUrl}/api/v1/health`).catch(() => undefined);
  if (res?.status !== 200) return {};
  return ((await res.json()) as { components?: Record<string, ComponentStatus> }).components ?? {};
}

/**
 * Change events of the supervisor's report, which the health route serves: it is written (to a
 * temporary file renamed over it) on every change of a component's state.
 */
const reportChanges: ChangeSource = (changed) => {
  const report = basename(platform.statusFile);
  const watcher = watch(dirname(platform.statusFile), (_event, file) => {
    if (file === report) changed();
  });
  return () => watcher.close();
};

/** Change events of `emitter`'s `event`. */
function eventsOf(emitter: EventEmitter, event: string): ChangeSource {
  return (changed) => {
    emitter.on(event, changed);
    return () => emitter.off(event, changed);
  };
}

/** Waits until the health route reports `name` running again after `restarts` restarts. */
function restarted(name: string, restarts: number) {
  let last: ComponentStatus | undefined;
  return waitFor(
    `the health route to report ${name} running after ${restarts} restart(s)`,
    async () => {
      // A restarting API server may break off its answer: not yet, as when it refuses.
      last = (await health().catch(() => ({}) as Record<string, ComponentStatus>))[name];
      return last?.state === 'running' && last.restarts === restarts ? last : undefined;
    },
    { timeoutMs: 90_000, wakeOn: reportChanges, lastSeen: () => last },
  );
}

function vectors(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${platform.vectorsUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The code blocks of `lang` in the README section under `heading`, in order. */
async function readmeBlocks(heading: string, lang: string): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === lang)
    .map((match) => match[2]!);
}

/**
 * Runs a README shell snippet with bash from a directory laid out like the
 * repository (`examples/`, `node_modules/`, and a `.dev/env` of this platform),
 * as a user would after `npm start`; resolves with its output, throws on failure.
 */
async function runAsUser(script: string, files: Record<string, string> = {}): Promise<string> {
  const home = join(dir, 'user');
  await mkdir(join(home, '.dev'), { recursive: true });
  await writeEnvFile(join(home, '.dev', 'env'), {
    SVC_API_URL: platform.apiUrl,
    SVC_VECTORS_URL: platform.vectorsUrl,
    SVC_EDGE_URL: platform.edgeUrl,
    SVC_ENGINE_URL: platform.engineUrl,
    SVC_AGENT_DOMAIN: 'agents.localhost',
    SVC_API_KEY: key,
    KUBECONFIG: platform.controlPlane.kubeconfigPath,
    MONGODB_URI: platform.mongoUri,
  });
  for (const link of ['examples', 'node_modules']) {
    await symlink(join(repoRoot, link), join(home, link)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  for (const [name, text] of Object.entries(files)) await writeFile(join(home, name), text);
  const { stdout } = await promisify(execFile)('timeout', ['180', 'bash', '-e', '-c', script], {
    cwd: home,
    // Only what a login shell has: the platform's addresses come from sourcing .dev/env.
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

describe('the README, run as written', () => {
  it('walks through the first agent with curl: create, deploy, wait, call (by name and by Host:), run, logs', async () => {
    const [walkthrough] = await readmeBlocks('Your first agent, with curl', 'sh');
    const out = await runAsUser(walkthrough!);
    expect(out).toContain('"state": "active"');
    const answer = '{"hello": "from python", "path": "/hi", "agent": "hello-py"}';
    expect(out.split(answer)).toHaveLength(3);
    expect(out).toContain('"trigger_source":"manual"');
    expect(out).toContain('build of version 1 succeeded');
  }, 240_000);

  it("runs the vector plane's curl, Python and JavaScript examples", async () => {
    const section = 'The vector plane';
    const [shell] = await readmeBlocks(section, 'sh');
    const [python] = await readmeBlocks(section, 'python');
    const [js] = await readmeBlocks(section, 'js');
    const curled = await runAsUser(shell!);
    expect(curled).toMatch(
      /"payload":\{"title":"first","__svc_agent_id":null,"__svc_deployment_id":null\}/,
    );

    const py = await runAsUser(
      `source .dev/env && ${join(repoRoot, '.tools', 'venv', 'bin', 'python')} notes.py`,
      { 'notes.py': python! },
    );
    expect(py).toBe("[(1, 0.991, 'first'), (2, 0.365, 'second')]\ncount 2\n");

    const node = await runAsUser('source .dev/env && node notes.mjs', { 'notes.mjs': js! });
    expect(node).toBe("[ [ 1, '0.991', 'first' ], [ 2, '0.365', 'second' ] ]\ncount 2\n");
  }, 120_000);
});

/** One sample of a parsed exposition: its series name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads `url` and parses it with the official Prometheus Python client's text-format parser. */
async function scrape(
  url: string,
): Promise<{ text: string; families: Record<string, { type: string; samples: Sample[] }> }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const parse = [
    'import json, sys',
    'from prometheus_client.parser import text_string_to_metric_families',
    'out = {}',
    'for f in text_string_to_metric_families(sys.stdin.read()):',
    '    out[f.name] = {"type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}',
    'print(json.dumps(out))',
  ].join('\n');
  const python = join(repoRoot, '.tools', 'venv', 'bin', 'python');
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = execFile(python, ['-c', parse], { maxBuffer: 16 * 1024 * 1024 }, (err, out) =>
      err ? reject(err) : resolve(out),
    );
    child.stdin?.end(text);
  });
  return { text, families: JSON.parse(stdout) };
}

function samplesOf(
  families: Record<string, { samples: Sample[] }>,
  family: string,
  labels: Record<string, string> = {},
): Sample[] {
  return (families[family]?.samples ?? []).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

describe('the web dashboard', () => {
  it('is served under /dashboard/ with its CSP, and the vector plane answers its origin', async () => {
    // Built once per run, before any test (test/harness/shared-builds.mjs).
    const vectorsOrigin = new URL(platform.vectorsUrl).origin;
    const page = await fetch(`${platform.apiUrl}/dashboard/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="app.js"></script>');
    expect(page.headers.get('content-security-policy')).toContain(
      `connect-src 'self' ${vectorsOrigin};`,
    );
    const config = (await (await fetch(`${platform.apiUrl}/dashboard/config.json`)).json()) as {
      vectors_url: string;
    };
    expect(new URL(config.vectors_url).origin).toBe(vectorsOrigin);
    const origin = new URL(platform.apiUrl).origin;
    const preflight = await fetch(`${platform.vectorsUrl}/api/v1/collections`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const list = await fetch(`${platform.vectorsUrl}/api/v1/collections`, {
      headers: { origin, authorization: `Bearer ${key}` },
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBe(origin);
  });
});

describe('Prometheus metrics', () => {
  it("labels the API server's requests by front door and route template, never by name or key", async () => {
    const agents = await fetch(`${platform.apiUrl}/api/v1/agents/hello-py`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(agents.status).toBe(200);
    expect((await fetch(`${platform.apiUrl}/no/such/route`)).status).toBe(404);
    expect((await vectors('GET', '/collections')).status).toBe(200);

    const { text, families } = await scrape(platform.metricsUrls.apiserver!);
    expect(families.svc_http_requests?.type).toBe('counter');
    expect(families.svc_http_request_duration_seconds?.type).toBe('histogram');
    const named = samplesOf(families, 'svc_http_requests', {
      front: 'control_plane',
      route: '/api/v1/agents/:agent',
      method: 'GET',
      code: '200',
    });
    expect(named[0]?.value).toBeGreaterThanOrEqual(1);
    expect(
      samplesOf(families, 'svc_http_requests', {
        front: 'control_plane',
        route: 'unmatched',
        code: '404',
      }),
    ).toHaveLength(1);
    expect(
      samplesOf(families, 'svc_http_requests', {
        front: 'vector_plane',
        route: '/api/v1/collections',
      })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    // The README's walkthrough called the agent through the edge.
    expect(
      samplesOf(families, 'svc_http_requests', {
        front: 'edge',
        route: 'agent',
        code: '200',
      })[0]?.value,
    ).toBeGreaterThanOrEqual(2);
    expect(samplesOf(families, 'process_resident_memory_bytes')[0]?.value).toBeGreaterThan(0);
    expect(text).not.toContain('hello-py');
    expect(text).not.toContain(key);
  });

  it("reports the operator's reconciles, queue and agents by status", async () => {
    const { families } = await scrape(platform.metricsUrls.operator!);
    expect(
      samplesOf(families, 'svc_reconcile', { kind: 'Agent', result: 'success' })[0]?.value,
    ).toBeGreaterThan(0);
    expect(
      samplesOf(families, 'svc_reconcile', { kind: 'AgentDeployment' }).length,
    ).toBeGreaterThan(0);
    expect(families.svc_reconcile_duration_seconds?.type).toBe('histogram');
    expect(families.svc_workqueue_depth?.type).toBe('gauge');
    expect(families.svc_workqueue_retries?.type).toBe('counter');
    const agents = samplesOf(families, 'svc_agents');
    expect(agents.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(1);
    expect(agents.every((s) => Object.keys(s.labels).join() === 'status')).toBe(true);
  });

  it("reports the engine's collections, points and search latency, without collection names", async () => {
    const { text, families } = await scrape(platform.metricsUrls.engine!);
    expect(samplesOf(families, 'svc_engine_collections')[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samplesOf(families, 'svc_engine_points')[0]?.value).toBeGreaterThanOrEqual(2);
    expect(families.svc_engine_search_duration_seconds?.type).toBe('histogram');
    const searches = samplesOf(families, 'svc_engine_search_duration_seconds').find((sample) =>
      sample.name.endsWith('_count'),
    );
    expect(searches?.value).toBeGreaterThanOrEqual(1);
    expect(
      samplesOf(families, 'svc_http_requests', { front: 'engine' }).some((s) =>
        s.labels.route?.startsWith('/collections/{name}'),
      ),
    ).toBe(true);
    expect(text).not.toMatch(/notes|collection_name=/);
  });
  it('serves every series the Grafana dashboard (hack/grafana) charts', async () => {
    const dashboard = JSON.parse(
      await readFile(join(repoRoot, 'hack', 'grafana', 'svc-dashboard.json'), 'utf8'),
    ) as { panels: Array<{ targets: Array<{ expr: string }> }> };
    const charted = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets
          .flatMap((target) => [
            ...target.expr.matchAll(/\b((?:svc|process|nodejs)_[a-z0-9_]+)\b/g),
          ])
          .map((match) => match[1]!),
      ),
    );
    expect(charted.size).toBeGreaterThan(10);
    const served = new Set<string>();
    for (const url of Object.values(platform.metricsUrls)) {
      const { families } = await scrape(url);
      for (const family of Object.values(families)) {
        for (const sample of family.samples) served.add(sample.name);
      }
    }
    expect([...charted].filter((name) => !served.has(name))).toEqual([]);
  });
});

describe('the single-machine platform under SIGKILL', () => {
  it('reports every component running, none restarted, once started', async () => {
    const components = await health();
    expect(Object.keys(components).sort()).toEqual([
      'apiserver',
      'engine',
      'etcd',
      'ferretdb',
      'kube-apiserver',
      'kube-controller-manager',
      'operator',
    ]);
    for (const status of Object.values(components)) {
      expect(status).toMatchObject({ state: 'running', restarts: 0, last_exit: null });
    }
  });

  it('restarts the engine killed while upserts stream; every acknowledged point is there', async () => {
    const created = await vectors('POST', '/collections', {
      name: 'stream',
      vectors: { size: 4, distance: 'Cosine' },
    });
    expect([200, 201]).toContain(created.status);

    const acknowledged = new Set<number>();
    const refused: number[] = [];
    /** Emits `ack` whenever the engine acknowledged a batch. */
    const progress = new EventEmitter();
    let nextId = 1;
    let streaming = true;
    const writer = async () => {
      while (streaming) {
        const ids = Array.from({ length: 250 }, () => nextId++);
        const points = ids.map((id) => ({
          id,
          vector: [1, id % 7, id % 11, id % 13],
          payload: { n: id },
        }));
        const res = await vectors('PUT', '/collections/stream/points', { points }).catch(
          () => undefined,
        );
        await res?.arrayBuffer();
        if (res?.status === 200) {
          for (const id of ids) acknowledged.add(id);
          progress.emit('ack');
        } else {
          refused.push(res?.status ?? 0);
          // The writer's pace while the engine is down (a client backing off), not a wait.
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const acknowledgedAtLeast = (count: number, what: string) =>
      waitFor(what, () => acknowledged.size >= count, {
        timeoutMs: 90_000,
        wakeOn: eventsOf(progress, 'ack'),
        lastSeen: () => ({ acknowledged: acknowledged.size, refused: refused.length }),
      });
    const writers = [writer(), writer(), writer()];
    try {
      await acknowledgedAtLeast(3000, '3000 points acknowledged before the kill');
      const killed = pidOf('engine');
      process.kill(killed, 'SIGKILL');
      const status = await restarted('engine', 1);
      expect(status.last_exit).toBe('signal SIGKILL');
      expect(pidOf('engine')).not.toBe(killed);
      // The vector plane answers 200 again: the stream goes on.
      const before = acknowledged.size;
      await acknowledgedAtLeast(before + 3000, '3000 more points acknowledged after the restart');
    } finally {
      streaming = false;
      await Promise.all(writers);
    }
    // While the engine was down, writes were refused, not acknowledged.
    expect(refused.length).toBeGreaterThan(0);

    const stored = new Set<number>();
    let offset: unknown = null;
    do {
      const res = await vectors('POST', '/collections/stream/points/scroll', {
        limit: 1000,
        offset,
        with_payload: false,
      });
      expect(res.status).toBe(200);
      const { result } = (await res.json()) as {
        result: { points: Array<{ id: number }>; next_page_offset: unknown };
      };
      for (const point of result.points) stored.add(point.id);
      offset = result.next_page_offset;
    } while (offset !== null && offset !== undefined);
    const lost = [...acknowledged].filter((id) => !stored.has(id));
    expect({ acknowledged: acknowledged.size, lost: lost.length }).toEqual({
      acknowledged: acknowledged.size,
      lost: 0,
    });

    const log = await readFile(join(dir, 'logs', 'platform.log'), 'utf8');
    expect(log).toMatch(/platform: engine exited \(signal SIGKILL\); restarting in 0\.5 s/);
    expect(log).toMatch(/platform: engine restarted \(pid \d+/);
  }, 240_000);

  it('restarts the API server itself, which then reports its own restart', async () => {
    const killed = pidOf('apiserver');
    process.kill(killed, 'SIGKILL');
    const status = await restarted('apiserver', 1);
    expect(status.last_exit).toBe('signal SIGKILL');
    const res = await fetch(`${platform.apiUrl}/api/v1/agents`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect((await vectors('GET', '/collections/stream')).status).toBe(200);
  }, 120_000);

  it('restarts a control-plane component (FerretDB) on the same port, and the API answers again', async () => {
    process.kill(pidOf('ferretdb'), 'SIGKILL');
    await restarted('ferretdb', 1);
    let last: unknown;
    await waitFor(
      'GET /api/v1/agents to answer 200 after the FerretDB restart',
      async () => {
        const res = await fetch(`${platform.apiUrl}/api/v1/agents`, {
          headers: { authorization: `Bearer ${key}` },
        }).catch((err: Error) => err);
        last = res instanceof Error ? res.message : res.status;
        await (res instanceof Error ? undefined : res.arrayBuffer());
        return last === 200;
      },
      { timeoutMs: 90_000, lastSeen: () => last },
    );
    expect((await health()).engine?.restarts).toBe(1);
  }, 120_000);
});
