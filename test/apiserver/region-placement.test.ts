/**
 * Two real regions: the harness's kube-apiserver (local) and a second one on
 * the same etcd (region-b), each with its own operator (local driver) that
 * watches only its own API, and the API server given both in its registry.
 * An agent of a workspace placed in region-b has its custom resources in
 * region-b's API only; region-b's operator builds it; the deployment reports
 * its regions from what region-b's operator observed.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { LABELS } from '../../crds/src/index.js';
import { agentResource } from '../factories/custom-resources.js';
import { kubeConfig } from '../harness/env.js';
import { startTestRegion, type TestRegion } from '../harness/regions.js';
import { startLocalOperator, type LocalOperator } from '../operator/local-operator.js';
import { eventually } from '../operator/operator-harness.js';
import { startTwoRegionServer, type TwoRegionServer } from './two-region-server.js';
import { call, createCaller, type Caller, type TestServer } from './control-plane-server.js';
import { deployFiles, type Deployment } from './deploy/deploy-helpers.js';

// A build on a cold, shared machine may take a while.
jest.setTimeout(240_000);

let regionB: TestRegion;
let home: KubeConfig;
let server: TestServer;
let owner: Caller;
let operatorA: LocalOperator;
let operatorB: LocalOperator;
let deps: TwoRegionServer['deps'];
/** Namespaces only region-b's operator reconciles (for the test that it ignores region A). */
const onlyB = new Set<string>();

beforeAll(async () => {
  regionB = await startTestRegion('region-b');
  home = kubeConfig();
  ({ server, deps } = await startTwoRegionServer(regionB, 'regions'));
  // Keys of retired deployments are revoked at once here (no shutdown grace).
  await deps.keys.start({ graceMs: 0 });
  owner = await createCaller(server, { tier: 'enterprise' });
  operatorA = await startLocalOperator(server, (ns) => ns === owner.namespace);
  operatorB = await startLocalOperator(
    { ...server, kc: regionB.kc },
    (ns) => ns === owner.namespace || onlyB.has(ns),
  );
}, 180_000);

afterAll(async () => {
  await deps?.keys.stop();
  await operatorB?.stop();
  await operatorA?.stop();
  await server?.close();
  await regionB?.stop();
});

const agentIn = (kc: KubeConfig, id: string) =>
  new CustomResourceClient(kc).get('Agent', owner.namespace, id);
const deploymentIn = (kc: KubeConfig, id: string) =>
  new CustomResourceClient(kc).get('AgentDeployment', owner.namespace, id);

describe('an agent of a workspace placed in region-b', () => {
  let agentId: string;

  it("has its Agent in region-b's API and not in local's", async () => {
    const ws = await call(server, 'POST', '/api/v1/workspaces', {
      key: owner.key,
      body: { name: 'in-region-b', regions: ['region-b'] },
    });
    expect(ws.status).toBe(201);
    const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'b-job', agent_type: 'job', workspace_name: 'in-region-b' },
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
    const inB = await agentIn(regionB.kc, agentId);
    expect(inB?.metadata.labels?.[LABELS.region]).toBe('region-b');
    expect(await agentIn(home, agentId)).toBeNull();
    // The API reads it from where it is.
    const read = await call<{ name: string }>(server, 'GET', '/api/v1/agents/b-job', {
      key: owner.key,
    });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('b-job');
  });

  it("is built by region-b's operator, and its deployment reports region-b ready", async () => {
    const res = await deployFiles(server, owner.key, 'b-job', { 'main.py': 'print("hi")\n' });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    expect(await deploymentIn(regionB.kc, id)).not.toBeNull();
    expect(await deploymentIn(home, id)).toBeNull();
    const final = await eventually(
      () =>
        call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
          (r) => r.body,
        ),
      (d) => ['active', 'failed'].includes(d.state as string),
      'the deployment built in region-b',
      200_000,
    );
    expect(final).toMatchObject({
      state: 'active',
      regions: ['region-b'],
      pending_regions: [],
      regions_total: 1,
      regions_ready: 1,
    });
    // The status is region-b's operator's: its copy in region-b says active.
    expect((await deploymentIn(regionB.kc, id))?.status?.state).toBe('active');
    expect(await agentIn(home, agentId)).toBeNull();
  });

  it("runs where the agent is: the run's record is in region-b, finished by its operator", async () => {
    const res = await call<{ deployment_id: string }>(server, 'POST', '/api/v1/agents/b-job/run', {
      key: owner.key,
      body: {},
    });
    expect(res.status).toBe(202);
    const id = res.body.deployment_id;
    expect(await deploymentIn(home, id)).toBeNull();
    const run = await eventually(
      () => deploymentIn(regionB.kc, id),
      (d) => ['completed', 'failed'].includes(d?.status?.state ?? ''),
      'the run finished in region-b',
      120_000,
    );
    expect(run?.status?.state).toBe('completed');
    expect(run?.metadata.labels?.[LABELS.region]).toBe('region-b');
  });

  it("revokes the key of a version superseded in region-b, keeping the active one's", async () => {
    const before = await deps.accounts.liveDeploymentKeys(agentId);
    const res = await deployFiles(server, owner.key, 'b-job', { 'main.py': 'print("v2")\n' });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    await eventually(
      () => deploymentIn(regionB.kc, id),
      (d) => d?.status?.state === 'active',
      'version 2 active in region-b',
      120_000,
    );
    const live = await eventually(
      () => deps.accounts.liveDeploymentKeys(agentId),
      (keys) => keys.length === 1,
      "version 1's key revoked",
    );
    // Version 1's key was live until version 2 replaced it.
    expect(before.map((k) => k.deploymentId)).not.toContain(id);
    expect(before.length).toBe(1);
    expect(live.map((k) => k.deploymentId)).toEqual([id]);
  });
});

describe('each region operator', () => {
  it('acts only on the objects of its own API', async () => {
    const namespace = `only-b-${owner.accountId.slice(0, 8)}`;
    onlyB.add(namespace);
    for (const kc of [home, regionB.kc]) {
      await kc
        .makeApiClient(CoreV1Api)
        .createNamespace({ body: { metadata: { name: namespace } } });
    }
    // The same agent in both APIs: first in local's, whose operator does not take the namespace.
    const agent = agentResource(namespace, { name: 'watched-once' });
    await new CustomResourceClient(home).create('Agent', agent);
    await new CustomResourceClient(regionB.kc).create('Agent', structuredClone(agent));
    await eventually(
      () => new CustomResourceClient(regionB.kc).get('Agent', namespace, agent.metadata.name!),
      (a) => a?.status !== undefined,
      "region-b's operator reconciling its copy",
    );
    // Written to local first, its copy there was never reconciled by region-b's operator.
    const inHome = await new CustomResourceClient(home).get(
      'Agent',
      namespace,
      agent.metadata.name!,
    );
    expect(inHome?.status).toBeUndefined();
  });
});
