/**
 * The single-machine platform with two regions, as `npm start` runs it with
 * `SVC_LOCAL_REGIONS=local,region-2`: region-2 is a kube-apiserver of its own
 * on the same etcd, with its own engine and its own operator, and the API
 * server's registry names both. An agent of a workspace in region-2 lives in
 * region-2's API only, and region-2's operator deploys it; a service there
 * answers through the one edge. A workspace with a service and a collection
 * moves from local to region-2 while the service answers through the edge,
 * the collection answers searches and takes writes, none of them lost, and
 * region-2's operator is killed midway; and back, with the API server killed
 * in the middle of it.
 *
 * @run-last: its two regions' dozen processes, killed and restarted, run after the other files
 * (test/harness/sequencer.mjs); side by side with the other heavy files on two cores, the move
 * back stayed `running` for 6 minutes after its API server restarted, in 2 of 7 runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { LABELS } from '../../crds/src/index.js';
import { engineCollectionName } from '../../apiserver/src/vector/collections/model.js';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { bootstrapKey } from '../../hack/platform/bootstrap.js';
import { startScratchPlatform, type ScratchPlatform } from '../../hack/platform/scratch.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeArchive, PYTHON_SERVICE } from '../factories/archives.js';
import { waitFor } from '../harness/wait.js';
import { getThroughEdge } from '../factories/edge-request.js';

let platform: ScratchPlatform;
let key: string;
let accountId: string;

beforeAll(async () => {
  platform = await startScratchPlatform('regions', { regions: ['local', 'region-2'] });
  ({ key, accountId } = await bootstrapKey(platform.mongoUri, undefined));
}, 300_000);

afterAll(async () => {
  await platform?.stop();
}, 60_000);

async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  raw?: Buffer,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (raw) headers['content-type'] = 'application/gzip';
  const res = await fetch(`${platform.apiUrl}${path}`, {
    method,
    headers,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, body: (await res.json()) as T };
}

function kubeConfigOf(region: string): KubeConfig {
  const entry = platform.regions.find((r) => r.name === region);
  if (!entry) throw new Error(`no region ${region}`);
  const kc = new KubeConfig();
  kc.loadFromFile(entry.kubeconfigPath);
  return kc;
}

describe('npm start with two regions', () => {
  it('runs region-2 on its own API, with its own engine and operator', () => {
    expect(platform.regions.map((r) => r.name)).toEqual(['local', 'region-2']);
    const [local, second] = platform.regions;
    expect(second!.kubeconfigPath).not.toBe(local!.kubeconfigPath);
    expect(second!.engineUrl).not.toBe(local!.engineUrl);
    expect(kubeConfigOf('region-2').getCurrentCluster()?.server).not.toBe(
      kubeConfigOf('local').getCurrentCluster()?.server,
    );
    const names = [...platform.services.processes, ...platform.regionProcesses.processes].map(
      (p) => p.name,
    );
    expect(names).toEqual(
      expect.arrayContaining(['engine-region-2', 'operator-region-2', 'kube-apiserver-region-2']),
    );
  });

  it("places a region-2 workspace's agent in region-2, whose operator deploys it", async () => {
    expect(
      (await api('POST', '/api/v1/workspaces', { name: 'second', regions: ['region-2'] })).status,
    ).toBe(201);
    const agent = await api<{ id: string }>('POST', '/api/v1/agents', {
      name: 'far-job',
      agent_type: 'job',
      workspace_name: 'second',
    });
    expect(agent.status).toBe(201);
    const namespace = `svc-live-${accountId}`;
    const read = (region: string) =>
      new CustomResourceClient(kubeConfigOf(region)).get('Agent', namespace, agent.body.id);
    expect(await read('region-2')).not.toBeNull();
    expect(await read('local')).toBeNull();

    const deployed = await api<{ id: string }>(
      'POST',
      '/api/v1/agents/far-job/deploy',
      undefined,
      await makeArchive({ 'main.py': 'print("from region-2")\n' }),
    );
    expect(deployed.status).toBe(202);
    const last = await until(
      async () => {
        const d = (await api('GET', `/api/v1/deployments/${deployed.body.id}`)).body;
        return d.state === 'active' || d.state === 'failed' ? d : undefined;
      },
      180_000,
      `deployment ${deployed.body.id} in region-2 finished`,
    );
    expect(last).toMatchObject({
      state: 'active',
      regions: ['region-2'],
      regions_ready: 1,
      regions_total: 1,
    });
  }, 240_000);

  it('answers a region-2 service through the one edge', async () => {
    await api('POST', '/api/v1/agents', { name: 'far-svc', workspace_name: 'second' });
    const deployed = await api<{ id: string }>(
      'POST',
      '/api/v1/agents/far-svc/deploy',
      undefined,
      await makeArchive({ 'main.py': PYTHON_SERVICE }),
    );
    expect(deployed.status).toBe(202);
    const active = await until(async () => {
      const d = (await api(`GET`, `/api/v1/deployments/${deployed.body.id}`)).body;
      return d.state === 'active' || d.state === 'failed' ? d : undefined;
    });
    expect(active.state).toBe('active');
    const agent = await until(async () => {
      const a = (await api<{ url: string | null }>('GET', '/api/v1/agents/far-svc')).body;
      return a.url ? a : undefined;
    });
    const answer = await until(async () => {
      const res = await viaEdge(agent.url!);
      return res.status === 200 ? res : undefined;
    });
    expect(answer.text).toBe('hello');
  }, 240_000);
});

describe('a workspace with a service and a collection moved between the regions', () => {
  const namespace = () => `svc-live-${accountId}`;
  const notes = '/api/v1/workspaces/movers/collections/notes';
  let agentId: string;
  let url: string;
  let engineName: string;

  beforeAll(async () => {
    expect(
      (await api('POST', '/api/v1/workspaces', { name: 'movers', regions: ['local'] })).status,
    ).toBe(201);
    const agent = await api<{ id: string }>('POST', '/api/v1/agents', {
      name: 'mover-svc',
      workspace_name: 'movers',
    });
    agentId = agent.body.id;
    const deployed = await api<{ id: string }>(
      'POST',
      '/api/v1/agents/mover-svc/deploy',
      undefined,
      await makeArchive({ 'main.py': PYTHON_SERVICE }),
    );
    const active = await until(async () => {
      const d = (await api(`GET`, `/api/v1/deployments/${deployed.body.id}`)).body;
      return d.state === 'active' || d.state === 'failed' ? d : undefined;
    });
    expect(active.state).toBe('active');
    url = (
      await until(async () => {
        const a = (await api<{ url: string | null }>('GET', '/api/v1/agents/mover-svc')).body;
        return a.url ? a : undefined;
      })
    ).url!;
    const made = await vectors('POST', '/api/v1/workspaces/movers/collections', {
      name: 'notes',
      vectors: { size: 4, distance: 'cosine' },
      regions: ['local'],
    });
    expect(made.status).toBe(201);
    for (let start = 1; start <= 3000; start += 1000) {
      const points = Array.from({ length: 1000 }, (_, i) => notePoint(start + i, { v: 0 }));
      expect((await vectors('PUT', `${notes}/points?wait=true`, { points })).status).toBe(200);
    }
    engineName = engineCollectionName(
      { accountId, environment: 'live', workspace: 'movers' },
      'notes',
    );
  }, 300_000);

  it('moves to region-2 while the service answers through the edge and the collection answers searches, losing no write, its operator killed midway', async () => {
    const traffic = keepBusy();
    const id = await changeRegions('movers', ['region-2']);
    // Region-2's operator is killed while it builds the copy; the supervisor restarts it.
    await until(
      async () => ((await agentCopy('region-2')) ? true : undefined),
      undefined,
      "the agent's copy in region-2",
    );
    const operator = pidOf('operator-region-2');
    process.kill(operator, 'SIGKILL');
    await until(
      async () => (pidOf('operator-region-2') !== operator ? true : undefined),
      undefined,
      "region-2's operator restarted",
    );
    const op = await finished(id);
    const seen = await traffic.stop();
    expect(op).toMatchObject({ state: 'succeeded', error: null });
    expect(seen.edge.length).toBeGreaterThan(10);
    expect(seen.edge.filter((s) => s !== 200)).toEqual([]);
    expect(seen.searches.filter((s) => s !== 200)).toEqual([]);
    expect(seen.writes.filter((s) => s !== 200)).toEqual([]);
    // Nothing of the agent or the collection is left in local.
    expect(await agentCopy('local')).toBeNull();
    expect(await deploymentsIn('local')).toEqual([]);
    expect(await secretsIn('local')).toEqual([]);
    expect((await engine('local', 'GET', `/collections/${engineName}`)).status).toBe(404);
    // Region-2 serves the agent and holds every acknowledged write.
    expect(await agentCopy('region-2')).not.toBeNull();
    await expectWrites('region-2', seen.acknowledged);
    expect((await viaEdge(url)).status).toBe(200);
  }, 400_000);

  it('moves back with the API server killed midway; the restarted one finishes it', async () => {
    const countIn = async (region: string) =>
      (
        await engine<{ result: { count: number } }>(
          region,
          'POST',
          `/collections/${engineName}/points/count`,
          { exact: true },
        )
      ).body.result.count;
    const held = await countIn('region-2');
    const id = await changeRegions('movers', ['local']);
    await until(async () => {
      const op = (await api<Operation>('GET', `/api/v1/operations/${id}`)).body;
      return op.state === 'running' ? op : undefined;
    });
    const killed = pidOf('apiserver');
    process.kill(killed, 'SIGKILL');
    await until(
      async () => (pidOf('apiserver') !== killed ? true : undefined),
      undefined,
      'the API server restarted',
    );
    const op = await finished(id);
    expect(op).toMatchObject({ state: 'succeeded', error: null });
    expect(await agentCopy('region-2')).toBeNull();
    expect(await deploymentsIn('region-2')).toEqual([]);
    expect((await engine('region-2', 'GET', `/collections/${engineName}`)).status).toBe(404);
    expect((await agentCopy('local'))?.metadata.labels?.[LABELS.region]).toBe('local');
    expect(await countIn('local')).toBe(held);
    expect(held).toBeGreaterThan(3000);
    const answered = await until(async () =>
      (await viaEdge(url)).status === 200 ? true : undefined,
    );
    expect(answered).toBe(true);
  }, 400_000);

  type Operation = { state: string; error: string | null };

  async function changeRegions(ws: string, regions: string[]): Promise<string> {
    const res = await api<{ operation_id: string }>('PATCH', `/api/v1/workspaces/${ws}/regions`, {
      regions,
    });
    expect(res.status).toBe(202);
    return res.body.operation_id;
  }

  function finished(id: string): Promise<Operation> {
    return until(
      async () => {
        const op = (await api<Operation>('GET', `/api/v1/operations/${id}`)).body;
        return ['succeeded', 'failed', 'rolled_back'].includes(op.state) ? op : undefined;
      },
      360_000,
      `operation ${id} finished`,
    );
  }

  const agentCopy = (region: string) =>
    new CustomResourceClient(kubeConfigOf(region)).get('Agent', namespace(), agentId);
  const deploymentsIn = (region: string) =>
    new CustomResourceClient(kubeConfigOf(region)).list('AgentDeployment', namespace(), {
      labelSelector: `${LABELS.agentId}=${agentId}`,
    });
  const secretsIn = async (region: string) =>
    (
      await kubeConfigOf(region)
        .makeApiClient(CoreV1Api)
        .listNamespacedSecret({
          namespace: namespace(),
          labelSelector: `${LABELS.agentId}=${agentId}`,
        })
    ).items;

  /**
   * Calls the service through the edge, searches the collection and writes to
   * it (new points, and rewrites of old ones) in a loop until stopped; every
   * status, and the payload each acknowledged write left on its point.
   */
  function keepBusy() {
    const seen = {
      edge: [] as number[],
      searches: [] as number[],
      writes: [] as number[],
      acknowledged: new Map<number, number>(),
    };
    let running = true;
    let k = 0;
    const loops = [
      (async () => {
        while (running) {
          seen.edge.push((await viaEdge(url)).status);
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
      (async () => {
        while (running) {
          const res = await vectors('POST', `${notes}/points/search`, {
            vector: [1, 2, 3, 1],
            limit: 3,
          });
          seen.searches.push(res.status);
          await new Promise((r) => setTimeout(r, 50));
        }
      })(),
      (async () => {
        while (running) {
          k++;
          const points = [notePoint(100_000 + k, { v: k }), notePoint((k % 50) + 1, { v: k })];
          const res = await vectors('PUT', `${notes}/points?wait=true`, { points });
          seen.writes.push(res.status);
          if (res.status === 200) for (const p of points) seen.acknowledged.set(p.id, k);
          await new Promise((r) => setTimeout(r, 30));
        }
      })(),
    ];
    return {
      stop: async () => {
        running = false;
        await Promise.all(loops);
        return seen;
      },
    };
  }

  /** Every acknowledged write is on its point in `region`'s engine. */
  async function expectWrites(region: string, acknowledged: Map<number, number>) {
    const ids = [...acknowledged.keys()];
    const got = await engine<{ result: Array<{ id: number; payload: { v: number } }> }>(
      region,
      'POST',
      `/collections/${engineName}/points`,
      { ids, with_payload: true },
    );
    const stored = new Map(got.body.result.map((p) => [p.id, p.payload.v]));
    const lost = ids.filter((id) => stored.get(id) !== acknowledged.get(id));
    expect(lost).toEqual([]);
    expect(ids.length).toBeGreaterThan(10);
  }
});

/** A point of the `notes` collection. */
function notePoint(id: number, payload: Record<string, unknown>) {
  return { id, vector: [1 + (id % 7), 1 + (id % 5), 1 + (id % 3), 1], payload };
}

/** A vector-plane request with the bootstrap key. */
async function vectors<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const res = await fetch(`${platform.vectorsUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch(() => null);
  if (!res) return { status: 0, body: {} as T };
  return { status: res.status, body: (await res.json().catch(() => ({}))) as T };
}

/** Straight to a region's engine, behind the gateway's back. */
async function engine<T = Record<string, unknown>>(
  region: string,
  method: string,
  path: string,
  body?: unknown,
) {
  const entry = platform.regions.find((r) => r.name === region)!;
  const res = await fetch(`${entry.engineUrl}${path}`, {
    method,
    headers: { 'api-key': platform.engineApiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

function pidOf(name: string): number {
  const proc = [...platform.services.processes, ...platform.regionProcesses.processes].find(
    (p) => p.name === name,
  );
  if (!proc) throw new Error(`no ${name} process`);
  return proc.pid;
}

/**
 * Resolves with `check`'s first defined value (checked every 250 ms through the test kit's
 * waitFor); after `timeoutMs` fails naming `what`, with the end of the platform's log (its
 * components' exits, restarts and giving up) and of the API server's and operator's.
 */
async function until<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 180_000,
  what = 'the condition',
): Promise<T> {
  try {
    return await waitFor(what, () => check().catch(() => undefined), { timeoutMs, everyMs: 250 });
  } catch (err) {
    const tail = async (file: string, lines: number) =>
      (
        await readFile(join(platform.dir, 'logs', file), 'utf8').catch(
          (e: Error) => `(no log: ${e.message})`,
        )
      )
        .split('\n')
        .slice(-lines)
        .join('\n');
    throw new Error(
      `${(err as Error).message}; the platform's log ends:\n${await tail('platform.log', 25)}` +
        `\nthe API server's log ends:\n${await tail('apiserver.log', 30)}` +
        `\nthe local operator's log ends:\n${await tail('operator.log', 30)}`,
      { cause: err },
    );
  }
}

/** GETs an agent URL through the platform's edge, with the agent's Host. */
function viaEdge(url: string): Promise<{ status: number; text: string }> {
  return getThroughEdge(url, '127.0.0.1', Number(new URL(platform.edgeUrl).port));
}
