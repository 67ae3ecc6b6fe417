/**
 * The operator with the Kubernetes driver, driven through the HTTP API, one
 * test per row of the contract's state table: a deploy builds, rolls out and
 * serves; a failed build fails the deployment; stop, archive and restore; a
 * workload lost on the provider and recovered by a redeploy; superseded and
 * rolled-back versions; cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { V1Deployment, V1Job } from '@kubernetes/client-node';
import { OBJECT_NAMES, LABELS, workspaceId, workspaceSecretsName } from '../../crds/src/index.js';
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
let counter = 0;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace);
});

afterAll(async () => {
  await operator.stop();
  await server.close();
});

type Agent = {
  id: string;
  name: string;
  status: string;
  deployed: boolean;
  url: string | null;
  failure_code: string | null;
};

const k = () => clients(server.kc);
const getAgent = (ref: string) =>
  call<Agent>(server, 'GET', `/api/v1/agents/${ref}`, { key: owner.key }).then((r) => r.body);
const getDeployment = (id: string) =>
  call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );
const waitDeployment = (id: string, state: string) =>
  eventually(
    () => getDeployment(id),
    (d) => d.state === state,
    `deployment ${id} ${state}`,
    30_000,
    resourceChanges(server.kc, 'AgentDeployment', owner.namespace),
  );
const waitAgent = (ref: string, accept: (a: Agent) => boolean, what: string) =>
  eventually(
    () => getAgent(ref),
    accept,
    what,
    30_000,
    resourceChanges(server.kc, 'Agent', owner.namespace),
  );

async function newAgent(extra: Record<string, unknown> = {}): Promise<Agent> {
  const name = `op-${++counter}`;
  const res = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function deploy(agent: string): Promise<Deployment> {
  const res = await deployFiles(server, owner.key, agent, { 'main.py': PYTHON_SERVICE });
  expect(res.status).toBe(202);
  return res.body;
}

/** Plays the build pod to its end. */
async function finishBuild(d: Deployment, succeeded = true, message?: string): Promise<V1Job> {
  const job = await eventually(
    () =>
      k().batch.readNamespacedJob({
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
  return job;
}

/** Plays the service's pods to ready. */
async function serveReady(agentId: string, d: Deployment): Promise<void> {
  await readyPods(
    server.kc,
    owner.namespace,
    `${LABELS.agentId}=${agentId},${LABELS.deploymentId}=${d.id},${LABELS.component}=service`,
  );
}

async function deployedAgent(): Promise<{ agent: Agent; deployment: Deployment }> {
  const agent = await newAgent();
  const deployment = await deploy(agent.name);
  await finishBuild(deployment);
  await serveReady(agent.id, deployment);
  await waitDeployment(deployment.id, 'active');
  await waitAgent(agent.id, (a) => a.status === 'running', 'agent running');
  // The operator has seen the active version's workload (what makes its disappearance a loss).
  await eventually(
    () => readAgent(server.kc, owner.namespace, agent.id),
    (a) =>
      a.status?.workloadVersion === deployment.version &&
      a.status.activeDeploymentId === deployment.id,
    'workload of the active version seen',
  );
  return { agent, deployment };
}

const readWorkload = (agentId: string): Promise<V1Deployment> =>
  k().apps.readNamespacedDeployment({
    namespace: owner.namespace,
    name: OBJECT_NAMES.workload(agentId),
  });

describe('deploy finishes successfully: deployment active, agent running', () => {
  it('builds in a Job, rolls out a Deployment behind a Service, then serves', async () => {
    const agent = await newAgent({ memory_mb: 512, workspace_name: 'team-a' });
    const d = await deploy(agent.name);
    const job = await finishBuild(d);
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'AgentDeployment',
      name: d.id,
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(job.spec?.backoffLimit).toBe(0);
    const buildContainer = job.spec?.template.spec?.containers[0];
    expect(buildContainer?.image).toBe(operator.cfg.images.builder);
    expect(buildContainer?.args).toEqual([
      'build',
      '--source',
      '/workspace',
      '--runtime',
      'python3.11',
      '--entrypoint',
      'main.py',
    ]);
    const sourceEnv = job.spec?.template.spec?.initContainers?.[0]?.env?.[0]?.value ?? '';
    expect(sourceEnv).toMatch(
      new RegExp(`/internal/deployments/${d.id}/archive\\?token=[A-Za-z0-9_-]+$`),
    );

    const workload = await eventually(
      () => readWorkload(agent.id),
      () => true,
      'workload',
    );
    expect(workload.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Agent',
      name: agent.id,
      controller: true,
    });
    expect(workload.spec?.replicas).toBe(1);
    const pod = workload.spec?.template.spec;
    const container = pod?.containers[0];
    expect(container?.image).toBe(operator.cfg.images.runnerPython);
    expect(container?.ports).toEqual([
      expect.objectContaining({ name: 'http', containerPort: 8080 }),
    ]);
    expect(container?.readinessProbe?.httpGet).toMatchObject({ path: '/health', port: 8080 });
    // Probed every second until it first answers: a wake from zero waits on it.
    expect(container?.startupProbe).toMatchObject({
      httpGet: { path: '/health', port: 8080 },
      periodSeconds: 1,
    });
    expect(container?.resources?.limits).toMatchObject({ memory: '512Mi' });
    const env = Object.fromEntries(
      (container?.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]),
    );
    expect(env).toMatchObject({
      SVC_AGENT_ID: agent.id,
      SVC_AGENT_NAME: agent.name,
      SVC_REGION: 'local',
      SVC_MEMORY_MB: '512',
      SVC_VCPUS: '1',
      SVC_DEPLOYMENT_ID: d.id,
      SVC_WORKSPACE: 'team-a',
      SVC_SPAWN_URL: `${operator.cfg.publicApiUrl}/api/v1/agents/${agent.id}/spawn`,
      SVC_API_KEY: {
        secretKeyRef: { name: OBJECT_NAMES.deploymentKeySecret(d.id), key: 'SVC_API_KEY' },
      },
    });
    expect(env).toHaveProperty('SVC_API_URL');
    expect(env).toHaveProperty('SVC_VECTORS_URL');
    expect(env).not.toHaveProperty('SVC_SPAWN_ID');
    // The workspace's secrets first, then the agent's own: the later wins on a shared key.
    expect(container?.envFrom).toEqual([
      {
        secretRef: {
          name: workspaceSecretsName(workspaceId(owner.namespace, 'team-a')),
          optional: true,
        },
      },
      { secretRef: { name: OBJECT_NAMES.agentSecrets(agent.id), optional: true } },
    ]);
    const service = await eventually(
      () =>
        k().core.readNamespacedService({
          namespace: owner.namespace,
          name: OBJECT_NAMES.workload(agent.id),
        }),
      () => true,
      'service',
    );
    expect(service.spec?.ports?.[0]).toMatchObject({ port: 80, targetPort: 8080 });

    expect((await getDeployment(d.id)).state).toBe('deploying');
    await waitAgent(agent.id, (a) => a.status === 'deploying', 'agent deploying');
    await serveReady(agent.id, d);
    const active = await waitDeployment(d.id, 'active');
    expect(active.deployed_at).not.toBeNull();
    const running = await waitAgent(agent.id, (a) => a.status === 'running', 'agent running');
    const cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(running).toMatchObject({
      deployed: true,
      url: `http://${cr.spec.addressLabel}.agents.test`,
    });
  });
});

describe('deploy fails: deployment failed with its error', () => {
  it('records the build failure in error_message, and the agent is failed', async () => {
    const agent = await newAgent();
    const d = await deploy(agent.name);
    await finishBuild(d, false);
    const failed = await waitDeployment(d.id, 'failed');
    expect(failed.error_message).toMatch(/^Build failed: /);
    await waitAgent(agent.id, (a) => a.status === 'failed' && !a.deployed, 'agent failed');
  });
});

describe('stop, archive, restore', () => {
  it('stop pauses a running agent: its workload scales to zero', async () => {
    const { agent } = await deployedAgent();
    const res = await call(server, 'POST', `/api/v1/agents/${agent.id}/stop`, { key: owner.key });
    expect(res.body).toMatchObject({ status: 'paused' });
    await eventually(
      () => readWorkload(agent.id),
      (w) => w.spec?.replicas === 0,
      'scaled to zero',
    );
    await waitAgent(agent.id, (a) => a.status === 'paused', 'agent paused');
    await call(server, 'POST', `/api/v1/agents/${agent.id}/start`, { key: owner.key });
    await eventually(
      () => readWorkload(agent.id),
      (w) => w.spec?.replicas === 1,
      'scaled back',
    );
  });

  it('archive removes the workload and the agent is archived; restore brings it back', async () => {
    const { agent, deployment } = await deployedAgent();
    expect(
      (await call(server, 'POST', `/api/v1/agents/${agent.id}/archive`, { key: owner.key })).body,
    ).toMatchObject({ status: 'archiving' });
    await waitAgent(
      agent.id,
      (a) => a.status === 'archived' && !a.deployed && a.url === null,
      'agent archived',
    );
    await expect(readWorkload(agent.id)).rejects.toMatchObject({ code: 404 });

    expect(
      (await call(server, 'POST', `/api/v1/agents/${agent.id}/restore`, { key: owner.key })).body,
    ).toMatchObject({ status: 'restoring' });
    await eventually(
      () => readWorkload(agent.id),
      () => true,
      'workload restored',
    );
    await serveReady(agent.id, deployment);
    await waitAgent(agent.id, (a) => a.status === 'running' && a.deployed, 'agent running again');
  });
});

describe('failed with app_lost_on_provider, recovered by a redeploy', () => {
  it('reports a vanished workload and restores it on redeploy, keeping the address', async () => {
    const { agent } = await deployedAgent();
    const before = await getAgent(agent.id);
    await k().apps.deleteNamespacedDeployment({
      namespace: owner.namespace,
      name: OBJECT_NAMES.workload(agent.id),
    });
    const lost = await waitAgent(
      agent.id,
      (a) => a.failure_code === 'app_lost_on_provider',
      'app lost',
    );
    expect(lost).toMatchObject({ status: 'failed', deployed: false });
    // Not recreated behind the user's back: a reconcile of the agent's present state has run.
    await operator.manager.reconcileNow('Agent', { namespace: owner.namespace, name: agent.id });
    await expect(readWorkload(agent.id)).rejects.toMatchObject({ code: 404 });

    const redeploy = await deploy(agent.id);
    await finishBuild(redeploy);
    await eventually(
      () => readWorkload(agent.id),
      () => true,
      'workload recreated',
    );
    await serveReady(agent.id, redeploy);
    const recovered = await waitAgent(
      agent.id,
      (a) => a.status === 'running' && a.failure_code === null,
      'recovered',
    );
    expect(recovered.url).toBe(before.url);
  });
});

describe('superseded and rolled_back', () => {
  it('a new active version supersedes the previous one; a rollback marks it rolled_back', async () => {
    const { agent, deployment: v1 } = await deployedAgent();
    const v2 = await deploy(agent.id);
    await finishBuild(v2);
    await serveReady(agent.id, v2);
    await waitDeployment(v2.id, 'active');
    expect((await waitDeployment(v1.id, 'superseded')).state).toBe('superseded');

    const rollback = await call<Deployment>(
      server,
      'POST',
      `/api/v1/agents/${agent.id}/deployments/1/rollback`,
      { key: owner.key },
    );
    expect(rollback.status).toBe(202);
    await finishBuild(rollback.body);
    await serveReady(agent.id, rollback.body);
    await waitDeployment(rollback.body.id, 'active');
    expect((await waitDeployment(v2.id, 'rolled_back')).state).toBe('rolled_back');
  });
});

describe('cancel', () => {
  it('stops the build and fails the deployment with the reason', async () => {
    const agent = await newAgent();
    const d = await deploy(agent.name);
    await eventually(
      () => getDeployment(d.id),
      (x) => x.state === 'building',
      'building',
    );
    await call(server, 'POST', `/api/v1/agents/${agent.id}/deployments/1/cancel`, {
      key: owner.key,
      body: { reason: 'oops' },
    });
    const failed = await waitDeployment(d.id, 'failed');
    expect(failed.error_message).toBe('Cancelled: oops');
    await eventually(
      async () =>
        (
          await k().batch.listNamespacedJob({
            namespace: owner.namespace,
            labelSelector: `${LABELS.deploymentId}=${d.id}`,
          })
        ).items,
      (jobs) => jobs.every((j) => j.metadata?.deletionTimestamp) || jobs.length === 0,
      'build job deleted',
    );
  });
});
