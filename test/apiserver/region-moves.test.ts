/**
 * Region changes that move agents between two real regions: the harness's
 * kube-apiserver (local) and a second one on the same etcd (region-b), each
 * with its own operator (local driver), the API server's runner carrying the
 * operation out and one edge in front of both. A workspace's service and job
 * move to region-b while the service keeps answering through the edge, and
 * nothing of them is left in local; a version that fails in region-b rolls
 * the change back and the old placement keeps serving; an operation another
 * API server's runner takes over finishes without doubling anything.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { createLogger } from '../../common/logger.js';
import { ANNOTATIONS, LABELS, OBJECT_NAMES, workspaceSecretsName } from '../../crds/src/index.js';
import { createEdgeServer } from '../../apiserver/src/edge/edge-server.js';
import { RegionalAgentIndex } from '../../apiserver/src/regions/regional-agent-index.js';
import { kubeConfig } from '../harness/env.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';
import { startLocalOperator, type LocalOperator } from '../operator/local-operator.js';
import { eventually } from '../operator/operator-harness.js';
import { startTwoRegionServer, type TwoRegionServer } from './two-region-server.js';
import { call, createCaller, type Caller, type TestServer } from './control-plane-server.js';
import { deployFiles, type Deployment } from './deploy/deploy-helpers.js';

// Builds in two regions on a cold, shared machine take a while.
jest.setTimeout(420_000);

const DOMAIN = 'agents.test';
const TIMINGS = {
  pollMs: 300,
  leaseMs: 3000,
  edgeGraceMs: 1500,
  backoffMs: 200,
  readyTimeoutMs: 240_000,
};

/** A service answering with its GREETING secret. */
const GREETER = `import os

async def app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": os.environ.get("GREETING", "none").encode()})
`;

let regionB: TestRegion;
let home: KubeConfig;
let two: TwoRegionServer;
let server: TestServer;
let owner: Caller;
let operatorA: LocalOperator;
let operatorB: LocalOperator;
let index: RegionalAgentIndex;
let edge: Server;

const ours = (ns: string) => ns === owner.namespace;

beforeAll(async () => {
  regionB = await startTestRegion('region-b', { controllerManager: true });
  home = kubeConfig();
  two = await startTwoRegionServer(regionB, 'moves', { regionChanges: TIMINGS });
  server = two.server;
  await two.deps.keys.start({ graceMs: 0 });
  owner = await createCaller(server, { tier: 'enterprise' });
  operatorA = await startLocalOperator(server, ours);
  operatorB = await startLocalOperator({ ...server, kc: regionB.kc }, ours);
  const log = createLogger('edge', 'silent');
  index = new RegionalAgentIndex(two.apis, log);
  await index.start();
  edge = createEdgeServer({ domain: DOMAIN, index, log, wakeTimeoutMs: 20_000 });
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
}, 240_000);

afterAll(async () => {
  edge?.closeAllConnections();
  edge?.close();
  await index?.stop();
  await two?.deps.keys.stop();
  await operatorB?.stop();
  await operatorA?.stop();
  await server?.close();
  await regionB?.stop();
});

type Operation = {
  state: string;
  error: string | null;
  progress: { agents: Array<{ name: string; state: string; ready_regions: string[] }> };
};

async function finished(id: string, timeoutMs = 300_000): Promise<Operation> {
  return eventually(
    () =>
      call<Operation>(server, 'GET', `/api/v1/operations/${id}`, { key: owner.key }).then(
        (r) => r.body,
      ),
    (op) => ['succeeded', 'failed', 'rolled_back'].includes(op.state),
    `operation ${id} finished`,
    timeoutMs,
  );
}

async function workspace(name: string): Promise<void> {
  const res = await call(server, 'POST', '/api/v1/workspaces', {
    key: owner.key,
    body: { name, regions: ['local'] },
  });
  expect(res.status).toBe(201);
}

/** Creates an agent in `ws` and deploys `files`; its id and active deployment's id. */
async function deployed(
  ws: string,
  name: string,
  agentType: 'service' | 'job',
  files: Record<string, string>,
  secrets: Record<string, string> = {},
): Promise<{ agentId: string; deploymentId: string }> {
  const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, agent_type: agentType, workspace_name: ws },
  });
  expect(created.status).toBe(201);
  for (const [key, value] of Object.entries(secrets)) {
    const put = await call(server, 'POST', `/api/v1/agents/${name}/secrets`, {
      key: owner.key,
      body: { key, value },
    });
    expect(put.status).toBe(201);
  }
  const res = await deployFiles(server, owner.key, name, files);
  expect(res.status).toBe(202);
  const active = await eventually(
    () =>
      call<Deployment>(server, 'GET', `/api/v1/deployments/${res.body.id}`, {
        key: owner.key,
      }).then((r) => r.body),
    (d) => ['active', 'failed'].includes(d.state),
    `${name} deployed`,
    240_000,
  );
  expect(active.state).toBe('active');
  return { agentId: created.body.id, deploymentId: res.body.id };
}

/** GETs / of the agent through the edge. */
function viaEdge(label: string): Promise<{ status: number; text: string }> {
  const port = (edge.address() as AddressInfo).port;
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', headers: { host: `${label}.${DOMAIN}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', (err) => resolve({ status: 0, text: String(err) }));
    req.end();
  });
}

/** Calls the agent through the edge every 100 ms until stopped; what each call answered. */
function keepCalling(label: string) {
  const answers: Array<{ status: number; text: string }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      answers.push(await viaEdge(label));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await loop;
      return answers;
    },
  };
}

async function addressOf(agentId: string): Promise<string> {
  const agent = await new CustomResourceClient(home).get('Agent', owner.namespace, agentId);
  return agent!.spec.addressLabel!;
}

const agentIn = (kc: KubeConfig, id: string) =>
  new CustomResourceClient(kc).get('Agent', owner.namespace, id);
const deploymentsIn = (kc: KubeConfig, agentId: string) =>
  new CustomResourceClient(kc).list('AgentDeployment', owner.namespace, {
    labelSelector: `${LABELS.agentId}=${agentId}`,
  });
const secretsIn = async (kc: KubeConfig, agentId: string) =>
  (
    await kc.makeApiClient(CoreV1Api).listNamespacedSecret({
      namespace: owner.namespace,
      labelSelector: `${LABELS.agentId}=${agentId}`,
    })
  ).items;

async function changeRegions(ws: string, regions: string[]): Promise<string> {
  const res = await call<{ operation_id: string }>(
    server,
    'PATCH',
    `/api/v1/workspaces/${ws}/regions`,
    { key: owner.key, body: { regions } },
  );
  expect(res.status).toBe(202);
  return res.body.operation_id;
}

describe('a workspace moved from local to region-b', () => {
  let service: { agentId: string; deploymentId: string };
  let job: { agentId: string; deploymentId: string };
  let runId: string;
  let calls: Array<{ status: number; text: string }>;
  let op: Operation;

  beforeAll(async () => {
    await workspace('travels');
    const shared = await call(server, 'POST', '/api/v1/workspaces/travels/secrets', {
      key: owner.key,
      body: { key: 'SHARED', value: 'from the workspace' },
    });
    expect(shared.status).toBe(201);
    service = await deployed(
      'travels',
      'traveller',
      'service',
      { 'main.py': GREETER },
      {
        GREETING: 'hello from a secret',
      },
    );
    job = await deployed('travels', 'ticker', 'job', { 'main.py': 'print("tick")\n' });
    const run = await call<{ deployment_id: string }>(server, 'POST', '/api/v1/agents/ticker/run', {
      key: owner.key,
      body: {},
    });
    expect(run.status).toBe(202);
    runId = run.body.deployment_id;
    await eventually(
      () => new CustomResourceClient(home).get('AgentDeployment', owner.namespace, runId),
      (d) => d?.status?.state === 'completed',
      'the run completed in local',
      120_000,
    );
    const label = await addressOf(service.agentId);
    await eventually(
      () => viaEdge(label),
      (r) => r.status === 200,
      'the service answering in local',
      60_000,
    );
    const caller = keepCalling(label);
    op = await finished(await changeRegions('travels', ['region-b']));
    calls = await caller.stop();
  });

  it('succeeds, each agent done and ready in region-b', () => {
    expect(op).toMatchObject({ state: 'succeeded', error: null });
    expect(op.progress.agents.map((a) => [a.name, a.state, a.ready_regions]).sort()).toEqual([
      ['ticker', 'done', ['region-b']],
      ['traveller', 'done', ['region-b']],
    ]);
  });

  it('kept the service answering through the edge the whole time', () => {
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.filter((c) => c.status !== 200)).toEqual([]);
    expect(new Set(calls.map((c) => c.text))).toEqual(new Set(['hello from a secret']));
  });

  it("serves the service from region-b's copy afterwards, with its secret", async () => {
    const label = await addressOf(service.agentId).catch(() => null);
    // The Agent is gone from local: its address is read from region-b.
    expect(label).toBeNull();
    const copy = await agentIn(regionB.kc, service.agentId);
    expect(copy?.metadata.labels?.[LABELS.region]).toBe('region-b');
    expect(copy?.metadata.annotations?.['svc.dev/regions']).toBe('region-b');
    const answer = await viaEdge(copy!.spec.addressLabel!);
    expect(answer).toEqual({ status: 200, text: 'hello from a secret' });
    const secret = await regionB.kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      namespace: owner.namespace,
      name: OBJECT_NAMES.agentSecrets(service.agentId),
    });
    expect(Buffer.from(secret.data?.GREETING ?? '', 'base64').toString()).toBe(
      'hello from a secret',
    );
  });

  it('leaves nothing of either agent in local', async () => {
    for (const { agentId } of [service, job]) {
      expect(await agentIn(home, agentId)).toBeNull();
      expect(await deploymentsIn(home, agentId)).toEqual([]);
      expect(await secretsIn(home, agentId)).toEqual([]);
    }
  });

  it('reports the deployment active in region-b, its history and key kept', async () => {
    const d = await call<Deployment>(server, 'GET', `/api/v1/deployments/${service.deploymentId}`, {
      key: owner.key,
    });
    expect(d.body).toMatchObject({
      state: 'active',
      regions: ['region-b'],
      pending_regions: [],
      regions_total: 1,
      regions_ready: 1,
    });
    const runs = await call<{ items: Array<{ id: string; state: string }> }>(
      server,
      'GET',
      '/api/v1/agents/ticker/runs',
      { key: owner.key },
    );
    expect(runs.body.items).toContainEqual(expect.objectContaining({ id: runId }));
    const record = await new CustomResourceClient(regionB.kc).get(
      'AgentDeployment',
      owner.namespace,
      runId,
    );
    expect(record?.status?.state).toBe('completed');
    expect(record?.metadata.annotations?.[ANNOTATIONS.importedState]).toBe('completed');
    // The version's key moved with it and still works: a check by the reaper (which revokes at
    // once here) has run since.
    await two.deps.keys.checkNow(owner.namespace, service.agentId);
    const keys = await two.deps.accounts.liveDeploymentKeys(service.agentId);
    expect(keys.map((k) => k.deploymentId)).toEqual([service.deploymentId]);
    expect(await secretsIn(regionB.kc, service.agentId)).toContainEqual(
      expect.objectContaining({
        metadata: expect.objectContaining({
          name: OBJECT_NAMES.deploymentKeySecret(service.deploymentId),
        }),
      }),
    );
  });

  it("gives the workspace its new regions, its secrets copied into region-b's API", async () => {
    const ws = await call<{ id: string; regions: string[] }>(
      server,
      'GET',
      '/api/v1/workspaces/travels',
      { key: owner.key },
    );
    expect(ws.body.regions).toEqual(['region-b']);
    const copy = await regionB.kc.makeApiClient(CoreV1Api).readNamespacedSecret({
      namespace: owner.namespace,
      name: workspaceSecretsName(ws.body.id),
    });
    expect(Buffer.from(copy.data?.SHARED ?? '', 'base64').toString()).toBe('from the workspace');
  });
});

describe('a version that fails in the added region', () => {
  let agentId: string;
  let calls: Array<{ status: number; text: string }>;
  let op: Operation;

  beforeAll(async () => {
    await workspace('stays');
    ({ agentId } = await deployed('stays', 'stayer', 'service', { 'main.py': GREETER }));
    // Region-b's operator cannot fetch archives any more: every build there fails.
    await operatorB.stop();
    operatorB = await startLocalOperator({ ...server, kc: regionB.kc }, ours, {
      // Not waiting for an API server that is not coming back.
      overrides: { internalApiUrl: 'http://127.0.0.1:1', archiveFetchRetrySeconds: 0 },
    });
    const label = await addressOf(agentId);
    await eventually(
      () => viaEdge(label),
      (r) => r.status === 200,
      'stayer answering',
      60_000,
    );
    const caller = keepCalling(label);
    op = await finished(await changeRegions('stays', ['region-b']));
    calls = await caller.stop();
    await operatorB.stop();
    operatorB = await startLocalOperator({ ...server, kc: regionB.kc }, ours);
  });

  it('rolls the change back, saying why', () => {
    expect(op.state).toBe('rolled_back');
    expect(op.error).toMatch(/Agent stayer: version 1 failed in region region-b/);
    expect(op.progress.agents).toEqual([
      expect.objectContaining({ name: 'stayer', state: 'rolled_back', ready_regions: ['local'] }),
    ]);
  });

  it('removes what it added and leaves the old placement serving', async () => {
    expect(await agentIn(regionB.kc, agentId)).toBeNull();
    expect(await deploymentsIn(regionB.kc, agentId)).toEqual([]);
    expect(await secretsIn(regionB.kc, agentId)).toEqual([]);
    const copy = await agentIn(home, agentId);
    expect(copy?.metadata.annotations?.['svc.dev/regions']).toBe('local');
    expect(copy?.metadata.annotations?.[ANNOTATIONS.draining]).toBeUndefined();
    expect(calls.filter((c) => c.status !== 200)).toEqual([]);
    expect((await viaEdge(copy!.spec.addressLabel!)).status).toBe(200);
    const ws = await call<{ regions: string[] }>(server, 'GET', '/api/v1/workspaces/stays', {
      key: owner.key,
    });
    expect(ws.body.regions).toEqual(['local']);
  });
});

describe('an operation whose API server stopped', () => {
  it('is taken over by another API server and converges, nothing doubled', async () => {
    await workspace('handover');
    const { agentId } = await deployed('handover', 'relay', 'job', { 'main.py': 'print(1)\n' });
    const before = await deploymentsIn(home, agentId);
    const id = await changeRegions('handover', ['region-b']);
    // Stopped once the copy in region-b exists, while it is being built there.
    await eventually(
      () => agentIn(regionB.kc, agentId),
      (a) => a !== null,
      'the copy in region-b',
      60_000,
    );
    await two.deps.regionRunner.stop();
    const other = await startTwoRegionServer(regionB, 'moves', {
      regionChanges: TIMINGS,
      shareWith: two,
    });
    try {
      const op = await finished(id);
      expect(op.state).toBe('succeeded');
      const moved = await deploymentsIn(regionB.kc, agentId);
      expect(moved.map((d) => d.metadata.name).sort()).toEqual(
        before.map((d) => d.metadata.name).sort(),
      );
      expect(moved.find((d) => d.spec.version === 1)?.status?.state).toBe('active');
      expect(await agentIn(home, agentId)).toBeNull();
      expect(await deploymentsIn(home, agentId)).toEqual([]);
    } finally {
      await other.server.close();
      two.deps.regionRunner.start();
    }
  });
});
