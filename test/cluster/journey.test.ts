/**
 * The README's "Install on a cluster", run as written on a real node (test/cluster/node-cluster.ts),
 * then an agent's journey through the public REST API with the Kubernetes driver: services of
 * every runtime in real pods answering through the edge, logs, a run with a payload, a cron
 * schedule that fires, a secret the agent reads, and a delete whose pods go. The files share
 * one node and one install; they run in order.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LABELS } from '../../crds/src/index.js';
import { repoRoot, toolsBin } from '../../hack/lib/paths.js';
import { makeArchive } from '../factories/archives.js';
import { getThroughEdge } from '../factories/edge-request.js';
import { kubeChanges, resourceChanges, waitFor } from '../harness/wait.js';
import { clusterState } from './node-cluster.js';

const run = promisify(execFile);
let kubeconfig: string;
let kc: KubeConfig;
let core: CoreV1Api;
let apiUrl: string;
let edgeUrl: string;
let key: string;

beforeAll(async () => {
  ({ kubeconfig } = await clusterState());
  kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});

/** Runs `script` with bash as a cluster admin would: kubectl and helm on PATH, the node's kubeconfig. */
async function asAdmin(script: string): Promise<string> {
  const { stdout } = await run('timeout', ['300', 'bash', '-e', '-c', script], {
    cwd: repoRoot,
    env: {
      PATH: `${toolsBin}:${process.env.PATH}`,
      HOME: process.env.HOME,
      KUBECONFIG: kubeconfig,
    },
    maxBuffer: 16 << 20,
  });
  return stdout;
}

/** The sh blocks of the README section `heading`, in order. */
async function readmeBlocks(heading: string): Promise<string[]> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A control-plane request with the first key. */
async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  archive?: Buffer,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (archive) headers['content-type'] = 'application/gzip';
  else if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers,
    body: archive ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
}

/** GETs an agent's URL through the edge Service, with the agent's Host. */
function viaEdge(url: string): Promise<{ status: number; text: string }> {
  const edge = new URL(edgeUrl);
  return getThroughEdge(url, edge.hostname, Number(edge.port));
}

/** The pods of the platform's release. */
async function platformPods(): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace: 'svc-system' })).items;
}

/** Deploys `files` as agent `name` and waits for the version to be active; its deployment. */
async function deployed(name: string, files: Record<string, string>) {
  const res = await api<{ id: string }>(
    'POST',
    `/api/v1/agents/${name}/deploy`,
    undefined,
    await makeArchive(files),
  );
  expect(res.status).toBe(202);
  const id = res.body.id;
  const accountNs = `svc-live-${account}`;
  return waitFor(
    `deployment ${id} of ${name} to become active`,
    async () => {
      const d = (
        await api<{ state: string; error_message: string | null }>(
          'GET',
          `/api/v1/deployments/${id}`,
        )
      ).body;
      if (d.state === 'failed') throw new Error(`deployment of ${name} failed: ${d.error_message}`);
      return d.state === 'active' ? d : undefined;
    },
    { timeoutMs: 180_000, wakeOn: resourceChanges(kc, 'AgentDeployment', accountNs) },
  );
}

/** The first account's id (from the README's create-account). */
let account: string;

/** An example's files, as a user's archive has them. */
async function example(name: string): Promise<Record<string, string>> {
  const dir = join(repoRoot, 'examples', name);
  const out: Record<string, string> = {};
  for (const file of (await run('ls', [dir])).stdout.split('\n').filter(Boolean)) {
    out[file] = await readFile(join(dir, file), 'utf8');
  }
  return out;
}

describe('the README install on a real node', () => {
  it('installs the chart as written; every platform pod becomes Ready, as non-root', async () => {
    const [install] = await readmeBlocks('Install on a cluster');
    expect(install).toContain('helm install svc charts/svc');
    // The one placeholder: the README's MongoDB is "yours"; here FerretDB, which takes no
    // password over the wire (its SQLite backend authenticates nobody).
    const uri = /mongodb\.uri='([^']+)'/.exec(install!)?.[1];
    expect(uri).toBeDefined();
    await asAdmin(install!.replace(uri!, 'mongodb://mongodb.db.svc:27017/svc'));
    const pods = await waitFor(
      'every platform pod Ready (2 API servers, 2 operators, the engine)',
      async () => {
        const items = await platformPods();
        const ready = items.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length >= 5 && ready.length === items.length ? items : undefined;
      },
      { timeoutMs: 180_000, wakeOn: kubeChanges(kc, '/api/v1/namespaces/svc-system/pods') },
    );
    for (const pod of pods) {
      expect([pod.metadata?.name, pod.spec?.securityContext?.runAsNonRoot]).toEqual([
        pod.metadata?.name,
        true,
      ]);
      for (const status of pod.status?.containerStatuses ?? []) {
        // What the container really runs as: the kubelet reports the uid it started it with.
        expect([pod.metadata?.name, status.user?.linux?.uid]).not.toEqual([pod.metadata?.name, 0]);
      }
    }
    const service = await core.readNamespacedService({
      name: 'svc-apiserver',
      namespace: 'svc-system',
    });
    const ip = service.spec?.clusterIP;
    apiUrl = `http://${ip}:8000`;
    edgeUrl = `http://${ip}:8002`;
  });

  it('makes the first key with the README commands, and the key lists agents', async () => {
    const [, firstKey] = await readmeBlocks('Install on a cluster');
    const lines = firstKey!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter(Boolean);
    const made = JSON.parse(await asAdmin(lines[0]!)) as { _id: string };
    expect(made._id).toMatch(/^[0-9a-f-]{36}$/);
    account = made._id;
    const created = JSON.parse(await asAdmin(lines[1]!.replace('<the _id printed>', made._id))) as {
      text: string;
    };
    key = created.text;
    expect(key).toMatch(/^svc_live_/);
    const curl = lines[2]!.replace('<key>', key).replace('https://api.example.com', apiUrl);
    expect(JSON.parse(await asAdmin(curl))).toMatchObject({ items: [], total: 0 });
  });
});

describe('agents on the Kubernetes driver, in real pods', () => {
  const services: Array<[string, string, Record<string, string> | string, string]> = [
    ['py-svc', 'python3.11', 'python-service', '"hello": "from python"'],
    ['node-svc', 'node22', 'node-service', '"hello":"from node"'],
    [
      'bun-svc',
      'bun',
      {
        'server.ts': [
          'export default {',
          '  fetch(request: Request): Response {',
          '    return new Response(`bun ${Bun.version}:${new URL(request.url).pathname}`);',
          '  },',
          '};',
          '',
        ].join('\n'),
        'svc.yaml': 'runtime: bun\ntype: service\nentrypoint: server.ts\n',
      },
      'bun 1.4.5:/',
    ],
  ];

  it.each(services)(
    'deploys %s (%s) and it answers through the edge',
    async (name, runtime, source, answer) => {
      expect((await api('POST', '/api/v1/agents', { name, runtime })).status).toBe(201);
      const files = typeof source === 'string' ? await example(source) : source;
      await deployed(name, files);
      const agent = await waitFor(`${name}'s URL`, async () => {
        const a = (await api<{ url: string | null }>('GET', `/api/v1/agents/${name}`)).body;
        return a.url ? a : undefined;
      });
      const reply = await waitFor(`${name} to answer through the edge`, async () => {
        const r = await viaEdge(agent.url!).catch(() => null);
        return r?.status === 200 ? r : undefined;
      });
      expect(reply.text).toContain(answer);
    },
  );

  it("reads the service's logs through the API", async () => {
    const logs = await waitFor('a log line of py-svc', async () => {
      const res = await api<{ items: Array<{ message: string }> }>(
        'GET',
        '/api/v1/agents/py-svc/logs',
      );
      return res.body.items?.length ? res.body.items : undefined;
    });
    expect(logs.length).toBeGreaterThan(0);
  });
});

/** A run's deployment once it has ended (completed or failed). */
async function runEnded(deploymentId: string) {
  return waitFor(
    `run ${deploymentId} to end`,
    async () => {
      const d = (
        await api<{ state: string; error_message: string | null }>(
          'GET',
          `/api/v1/deployments/${deploymentId}`,
        )
      ).body;
      return d.state === 'completed' || d.state === 'failed' ? d : undefined;
    },
    { timeoutMs: 120_000, wakeOn: resourceChanges(kc, 'AgentDeployment', `svc-live-${account}`) },
  );
}

/** A job that reads its payload back from the API and exits 0 only when it is `{"n": 7}`. */
const PAYLOAD_CHECKING_JOB = [
  'import json, os, sys, urllib.request',
  "url = f\"{os.environ['SVC_API_URL']}/api/v1/deployments/{os.environ['SVC_DEPLOYMENT_ID']}/payload\"",
  'req = urllib.request.Request(url, headers={"Authorization": f"Bearer {os.environ[\'SVC_API_KEY\']}"})',
  'payload = json.load(urllib.request.urlopen(req))["payload"]',
  'print("payload", payload, flush=True)',
  'sys.exit(0 if payload == {"n": 7} else 3)',
  '',
].join('\n');

describe('jobs, schedules, spawns and secrets on the Kubernetes driver', () => {
  it('runs a job whose pod reads its payload back (it exits 3 on any other payload)', async () => {
    expect(
      (await api('POST', '/api/v1/agents', { name: 'payload-job', agent_type: 'job' })).status,
    ).toBe(201);
    await deployed('payload-job', { 'main.py': PAYLOAD_CHECKING_JOB });
    const good = await api<{ deployment_id: string }>('POST', '/api/v1/agents/payload-job/run', {
      payload: { n: 7 },
    });
    expect(good.status).toBe(202);
    expect(await runEnded(good.body.deployment_id)).toMatchObject({ state: 'completed' });
    const bad = await api<{ deployment_id: string }>('POST', '/api/v1/agents/payload-job/run', {
      payload: { n: 8 },
    });
    expect((await runEnded(bad.body.deployment_id)).state).toBe('failed');
  });

  it('spawns the job from another agent; the child runs with its own payload', async () => {
    expect(
      (
        await api('POST', '/api/v1/agents', {
          name: 'spawner',
          spawn_enabled: true,
          allowed_workers: ['payload-job'],
        })
      ).status,
    ).toBe(201);
    await deployed('spawner', await example('python-service'));
    const spawned = await api<{ spawn_id: string; child_agent_id: string }>(
      'POST',
      '/api/v1/agents/spawner/spawn',
      { child_agent_id: 'payload-job', payload: { n: 7 } },
    );
    expect(spawned.status).toBeLessThan(300);
    expect(await runEnded(spawned.body.spawn_id)).toMatchObject({ state: 'completed' });
  });

  it('fires a cron schedule after a helm upgrade points CronJobs at a local curl image', async () => {
    // The chart's trigger image (curlimages/curl) is not built here; an upgrade with a changed
    // value rolls the operators, which keep reconciling.
    await asAdmin(
      'helm upgrade svc charts/svc -n svc-system --reuse-values ' +
        '--set operator.triggerImage=localhost/svc-test/curl:bookworm --wait --timeout 3m',
    );
    // Minutes five apart (the 300 s minimum) starting at the next minute with time to spare.
    const now = new Date();
    const first = (now.getUTCMinutes() + (now.getUTCSeconds() > 40 ? 2 : 1)) % 5;
    const minutes = Array.from({ length: 12 }, (_, i) => first + 5 * i).join(',');
    const files = await example('scheduled-job');
    files['svc.yaml'] = files['svc.yaml']!.replace(
      /schedule: .*/,
      `schedule: '${minutes} * * * *'`,
    );
    expect(
      (await api('POST', '/api/v1/agents', { name: 'ticker', agent_type: 'job' })).status,
    ).toBe(201);
    await deployed('ticker', files);
    const run = await waitFor(
      'a cron-triggered run of ticker that completed',
      async () => {
        const runs = (
          await api<{ items: Array<{ trigger_source: string; state: string }> }>(
            'GET',
            '/api/v1/agents/ticker/runs',
          )
        ).body.items;
        return runs?.find((r) => r.trigger_source === 'cron' && r.state === 'completed');
      },
      { timeoutMs: 200_000, everyMs: 2_000 },
    );
    expect(run.trigger_source).toBe('cron');
  });

  it('gives the agent its secret as an environment variable, and never returns the value', async () => {
    expect((await api('POST', '/api/v1/agents', { name: 'secret-svc' })).status).toBe(201);
    const value = `s3cret-${Date.now()}`;
    expect(
      (await api('POST', '/api/v1/agents/secret-svc/secrets', { key: 'GREETING', value })).status,
    ).toBeLessThan(300);
    const listed = await api('GET', '/api/v1/agents/secret-svc/secrets');
    expect(JSON.stringify(listed.body)).not.toContain(value);
    await deployed('secret-svc', {
      'main.py': [
        'import os',
        'async def app(scope, receive, send):',
        '    if scope["type"] != "http":',
        '        return',
        '    body = os.environ.get("GREETING", "missing").encode()',
        '    await send({"type": "http.response.start", "status": 200, "headers": []})',
        '    await send({"type": "http.response.body", "body": body})',
        '',
      ].join('\n'),
    });
    const agent = await waitFor("secret-svc's URL", async () => {
      const a = (await api<{ url: string | null }>('GET', '/api/v1/agents/secret-svc')).body;
      return a.url ? { url: a.url } : undefined;
    });
    const reply = await waitFor('secret-svc to answer through the edge', async () => {
      const r = await viaEdge(agent.url).catch(() => null);
      return r?.status === 200 ? r : undefined;
    });
    expect(reply.text).toBe(value);
  });

  it('deletes an agent: its pods and workloads go', async () => {
    const agent = (await api<{ id: string }>('GET', '/api/v1/agents/node-svc')).body;
    const namespace = `svc-live-${account}`;
    const selector = `${LABELS.agentId}=${agent.id}`;
    expect(
      (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.length,
    ).toBeGreaterThan(0);
    expect((await api('DELETE', '/api/v1/agents/node-svc')).status).toBeLessThan(300);
    await waitFor(
      `node-svc's pods to be gone`,
      async () =>
        (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.length === 0,
      { timeoutMs: 120_000, wakeOn: kubeChanges(kc, `/api/v1/namespaces/${namespace}/pods`) },
    );
    expect((await api('GET', '/api/v1/agents/node-svc')).status).toBe(404);
  });
});
