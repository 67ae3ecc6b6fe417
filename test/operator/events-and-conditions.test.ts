/**
 * What a kubectl user sees of the custom resources: conditions shaped like
 * metav1.Condition on all three kinds (the CRD schema, checked by the real
 * kube-apiserver on each status write), and Events regarding each resource
 * for its transitions, found as `kubectl describe` finds them (core/v1 Events
 * of the object's uid), one per transition however often it is reconciled.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import {
  API_GROUP_VERSION,
  CONDITION_REASON_PATTERN,
  LABELS,
  OBJECT_NAMES,
  workspaceId,
  type AgentDeployment,
  type Condition,
  type Workspace,
} from '../../crds/src/index.js';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import { readAgent } from '../apiserver/agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { resourceChanges } from '../harness/wait.js';
import {
  clients,
  eventually,
  finishPods,
  readyPods,
  startOperator,
  type RunningOperator,
} from './operator-harness.js';

let server: TestServer;
let operator: RunningOperator;
let owner: Caller;
let resources: CustomResourceClient;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace);
  resources = new CustomResourceClient(server.kc);
});

afterAll(async () => {
  await operator?.stop();
  await server?.close();
});

/** The Events of the object with `uid`, oldest first, as kubectl describe lists them. */
async function eventsOf(uid: string): Promise<CoreV1Event[]> {
  const list = await server.kc.makeApiClient(CoreV1Api).listNamespacedEvent({
    namespace: owner.namespace,
    fieldSelector: `involvedObject.uid=${uid}`,
  });
  const at = (e: CoreV1Event) => String(e.eventTime ?? e.firstTimestamp ?? '');
  return list.items.sort((a, b) => at(a).localeCompare(at(b)));
}

/** The reasons of those Events, once `accept` holds of them. */
async function reasonsOnce(uid: string, accept: (reasons: string[]) => boolean, what: string) {
  const events = await eventually(
    () => eventsOf(uid),
    (list) => accept(list.map((e) => e.reason ?? '')),
    what,
  );
  return events.map((e) => e.reason ?? '');
}

const readDeployment = (id: string) =>
  eventually(
    () => resources.get('AgentDeployment', owner.namespace, id),
    (d): d is AgentDeployment => d !== null,
    `AgentDeployment ${id}`,
  ) as Promise<AgentDeployment>;

const waitDeploymentState = (id: string, state: string) =>
  eventually(
    () => readDeployment(id),
    (d) => d.status?.state === state,
    `deployment ${id} ${state}`,
    30_000,
    resourceChanges(server.kc, 'AgentDeployment', owner.namespace),
  );

/** Every condition has metav1.Condition's fields, at the object's generation. */
function expectConditionShape(conditions: Condition[] | undefined, generation: number | undefined) {
  expect(conditions?.length).toBeGreaterThan(0);
  for (const c of conditions ?? []) {
    expect(c).toEqual({
      type: expect.stringMatching(/^[A-Z][A-Za-z]+$/),
      status: expect.stringMatching(/^(True|False|Unknown)$/),
      reason: expect.stringMatching(new RegExp(CONDITION_REASON_PATTERN)),
      message: expect.any(String),
      lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      observedGeneration: generation,
    });
  }
}

const byType = (conditions: Condition[] | undefined) =>
  Object.fromEntries((conditions ?? []).map((c) => [c.type, c]));

async function newAgent(name: string): Promise<{ id: string; name: string }> {
  const res = await call<{ id: string; name: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function deploy(agent: string): Promise<Deployment> {
  const res = await deployFiles(server, owner.key, agent, { 'main.py': PYTHON_SERVICE });
  expect(res.status).toBe(202);
  return res.body;
}

async function finishBuild(d: Deployment, succeeded: boolean, message?: string): Promise<void> {
  await eventually(
    () =>
      clients(server.kc).batch.readNamespacedJob({
        namespace: owner.namespace,
        name: OBJECT_NAMES.buildJob(d.id),
      }),
    () => true,
    'build job',
  );
  await finishPods(
    server.kc,
    owner.namespace,
    `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
    { succeeded, message },
  );
}

describe('a deploy that succeeds', () => {
  it('conditions the deployment and agent, and records Building, Built, Active once each', async () => {
    const agent = await newAgent('ev-ok');
    const d = await deploy(agent.name);
    await finishBuild(d, true);
    await readyPods(
      server.kc,
      owner.namespace,
      `${LABELS.agentId}=${agent.id},${LABELS.deploymentId}=${d.id},${LABELS.component}=service`,
    );
    const active = await waitDeploymentState(d.id, 'active');
    expectConditionShape(active.status?.conditions, active.metadata.generation);
    expect(byType(active.status?.conditions)).toMatchObject({
      Ready: { status: 'True', reason: 'Active' },
      Built: { status: 'True', reason: 'BuildSucceeded' },
    });

    const reasons = await reasonsOnce(
      active.metadata.uid!,
      (r) => r.includes('Active'),
      'the Active event',
    );
    expect(reasons).toEqual(['Building', 'Built', 'Active']);
    const [event] = await eventsOf(active.metadata.uid!);
    expect(event).toMatchObject({
      type: 'Normal',
      reportingComponent: 'svc.dev/operator',
      involvedObject: {
        apiVersion: API_GROUP_VERSION,
        kind: 'AgentDeployment',
        namespace: owner.namespace,
        name: d.id,
        uid: active.metadata.uid,
      },
    });

    const cr = await eventually(
      () => readAgent(server.kc, owner.namespace, agent.id),
      (a) => a.status?.status === 'running',
      'agent running',
      30_000,
      resourceChanges(server.kc, 'Agent', owner.namespace),
    );
    expectConditionShape(cr.status?.conditions, cr.metadata.generation);
    expect(byType(cr.status?.conditions)).toMatchObject({
      Ready: { status: 'True', reason: 'Running' },
      WorkloadAvailable: { status: 'True', reason: 'Available' },
    });
    const agentReasons = await reasonsOnce(
      cr.metadata.uid!,
      (r) => r.includes('Running'),
      'the agent’s Running event',
    );
    // Each a transition: never the same reason twice in a row.
    expect(agentReasons.filter((r, i) => r === agentReasons[i - 1])).toEqual([]);
    expect(agentReasons.at(-1)).toBe('Running');

    // Reconciles that change nothing record nothing.
    for (let i = 0; i < 3; i++) {
      await operator.manager.reconcileNow('AgentDeployment', {
        namespace: owner.namespace,
        name: d.id,
      });
      await operator.manager.reconcileNow('Agent', { namespace: owner.namespace, name: agent.id });
    }
    expect((await eventsOf(active.metadata.uid!)).map((e) => e.reason)).toEqual(reasons);
    expect((await eventsOf(cr.metadata.uid!)).map((e) => e.reason)).toEqual(agentReasons);
  });
});

describe('a deploy whose build fails', () => {
  it('records BuildFailed as a Warning on the deployment, and Failed on the agent', async () => {
    const agent = await newAgent('ev-fail');
    const d = await deploy(agent.name);
    await finishBuild(d, false, 'pip: no such package');
    const failed = await waitDeploymentState(d.id, 'failed');
    expect(byType(failed.status?.conditions)).toMatchObject({
      Ready: { status: 'False', reason: 'BuildFailed' },
      Built: { status: 'False', reason: 'BuildFailed' },
    });
    await reasonsOnce(failed.metadata.uid!, (r) => r.includes('BuildFailed'), 'BuildFailed');
    const warning = (await eventsOf(failed.metadata.uid!)).find((e) => e.reason === 'BuildFailed');
    expect(warning).toMatchObject({
      type: 'Warning',
      message: expect.stringMatching(/^Build failed/),
    });

    const cr = await readAgent(server.kc, owner.namespace, agent.id);
    await reasonsOnce(cr.metadata.uid!, (r) => r.at(-1) === 'Failed', 'the agent’s Failed event');
    const last = (await eventsOf(cr.metadata.uid!)).at(-1);
    expect(last).toMatchObject({ type: 'Warning', reason: 'Failed' });
  });
});

describe('a workspace', () => {
  it('becomes Ready, with one Ready event, counting its agents', async () => {
    const res = await call(server, 'POST', '/api/v1/workspaces', {
      key: owner.key,
      body: { name: 'ev-team', regions: ['local'] },
    });
    expect(res.status).toBe(201);
    const id = workspaceId(owner.namespace, 'ev-team');
    const ws = (await eventually(
      () => resources.get('Workspace', owner.namespace, id),
      (w) => byType(w?.status?.conditions).Ready?.status === 'True',
      'workspace Ready',
      30_000,
      resourceChanges(server.kc, 'Workspace', owner.namespace),
    )) as Workspace;
    expectConditionShape(ws.status?.conditions, ws.metadata.generation);
    expect(byType(ws.status?.conditions).Ready).toMatchObject({
      reason: 'Ready',
      message: 'The workspace has 0 agents.',
    });
    expect(await reasonsOnce(ws.metadata.uid!, (r) => r.length > 0, 'Ready event')).toEqual([
      'Ready',
    ]);
  });
});

describe('the CRD schema of conditions', () => {
  it('is enforced by kube-apiserver: a reason that is not CamelCase is refused', async () => {
    const agent = await newAgent('ev-schema');
    const cr = await eventually(
      () => readAgent(server.kc, owner.namespace, agent.id),
      (a) => Boolean(a.status?.conditions?.length),
      'agent conditions',
    );
    const bad = structuredClone(cr);
    bad.status!.conditions![0]!.reason = 'not camel case!';
    await expect(resources.writeStatus('Agent', bad, bad.status)).rejects.toMatchObject({
      code: 422,
    });
    const missing = structuredClone(cr);
    delete (missing.status!.conditions![0] as Partial<Condition>).lastTransitionTime;
    await expect(resources.writeStatus('Agent', missing, missing.status)).rejects.toMatchObject({
      code: 422,
    });
  });
});
