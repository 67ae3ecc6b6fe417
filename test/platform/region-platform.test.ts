/**
 * The single-machine platform with two regions, as `npm start` runs it with
 * `SVC_LOCAL_REGIONS=local,region-2`: region-2 is a kube-apiserver of its own
 * on the same etcd, with its own engine and its own operator, and the API
 * server's registry names both. An agent of a workspace in region-2 lives in
 * region-2's API only, and region-2's operator deploys it; a service there
 * answers through the one edge.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { bootstrapKey } from '../../hack/platform/bootstrap.js';
import { startScratchPlatform, type ScratchPlatform } from '../../hack/platform/scratch.js';
import { request } from 'node:http';
import { makeArchive, PYTHON_SERVICE } from '../factories/archives.js';

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
    const deadline = Date.now() + 180_000;
    let last: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      last = (await api('GET', `/api/v1/deployments/${deployed.body.id}`)).body;
      if (last.state === 'active' || last.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
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

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** GETs an agent URL through the platform's edge, with the agent's Host. */
function viaEdge(url: string): Promise<{ status: number; text: string }> {
  const { host, pathname } = new URL(url);
  const edgePort = Number(new URL(platform.edgeUrl).port);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: edgePort, path: pathname, headers: { host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
