/**
 * The operator's queue (queue_position while queued), schedules as CronJobs
 * (the schedule rows of the state table), convergence after a restart with no
 * duplicate Jobs, runs as Jobs, and Workspace agent counts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  LABELS,
  OBJECT_NAMES,
  PLURALS,
  type AgentDeployment,
} from '../../crds/src/index.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import { controllerRef } from '../../crds/src/owner-reference.js';
import { agentDeploymentResource, workspaceResource } from '../factories/custom-resources.js';
import { readAgent } from '../apiserver/agents/operator-view.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import {
  clients,
  eventually,
  finishPods,
  readyPods,
  startOperator,
  type RunningOperator,
} from './operator-harness.js';

let server: TestServer;
let owner: Caller;
let counter = 0;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'performance' });
});

afterAll(async () => {
  await server.close();
});

const ours = (ns: string) => ns === owner.namespace;
const k = () => clients(server.kc);
const getDeployment = (id: string) =>
  call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );

async function newAgent(
  extra: Record<string, unknown> = {},
): Promise<{ id: string; name: string }> {
  const name = `qs-${++counter}`;
  const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return { id: res.body.id, name };
}

const deploy = async (
  agent: string,
  files: Record<string, string> = { 'main.py': PYTHON_SERVICE },
) => (await deployFiles(server, owner.key, agent, files)).body;

const buildJobs = async (deploymentId: string) =>
  (
    await k().batch.listNamespacedJob({
      namespace: owner.namespace,
      labelSelector: `${LABELS.deploymentId}=${deploymentId},${LABELS.component}=build`,
    })
  ).items;

async function runOperator<T>(
  overrides: Parameters<typeof startOperator>[2],
  body: (op: RunningOperator) => Promise<T>,
): Promise<T> {
  const op = await startOperator(server.kc, ours, overrides);
  try {
    return await body(op);
  } finally {
    await op.stop();
  }
}

describe('deployment queued: queue_position set', () => {
  it('builds one at a time with a concurrency of 1 and gives the waiting one its position', async () => {
    await runOperator({ buildConcurrency: 1 }, async () => {
      const a = await newAgent();
      const b = await newAgent();
      const first = await deploy(a.name);
      await eventually(
        () => getDeployment(first.id),
        (d) => d.state === 'building',
        'first building',
      );
      const second = await deploy(b.name);
      const waiting = await eventually(
        () => getDeployment(second.id),
        (d) => d.queue_position === 1,
        'second queued',
      );
      expect(waiting).toMatchObject({ state: 'queued', queue_position: 1 });
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${first.id},${LABELS.component}=build`,
        { succeeded: false },
      );
      const started = await eventually(
        () => getDeployment(second.id),
        (d) => d.state === 'building',
        'second building',
      );
      expect(started.queue_position).toBeNull();
    });
  });
});

describe('schedules', () => {
  it('runs a schedule as a UTC CronJob without backfill; pause suspends it; the next run moves only on a new expression; null removes it', async () => {
    await runOperator({}, async () => {
      const job = { 'main.py': 'print("tick")\n' };
      const agent = await newAgent({ agent_type: 'job' });
      const d1 = await deploy(agent.name, { ...job, 'svc.yaml': 'schedule: "0 * * * *"\n' });
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d1.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await eventually(
        () => getDeployment(d1.id),
        (d) => d.state === 'active',
        'job version active',
      );
      const cron = await eventually(
        () =>
          k().batch.readNamespacedCronJob({
            namespace: owner.namespace,
            name: OBJECT_NAMES.cronJob(agent.id),
          }),
        () => true,
        'cronjob',
      );
      expect(cron.spec).toMatchObject({
        schedule: '0 * * * *',
        timeZone: 'Etc/UTC',
        suspend: false,
        startingDeadlineSeconds: 60,
        concurrencyPolicy: 'Allow',
      });
      expect(cron.metadata?.ownerReferences?.[0]).toMatchObject({
        kind: 'Agent',
        name: agent.id,
        controller: true,
      });
      const first = await eventually(
        () =>
          call<{ cron_next_run_at: string | null; deployed: boolean; status: string }>(
            server,
            'GET',
            `/api/v1/agents/${agent.id}`,
            { key: owner.key },
          ),
        (r) => r.body.cron_next_run_at !== null && r.body.status === 'running' && r.body.deployed,
        'next run',
      );
      expect(first.body).toMatchObject({ deployed: true, status: 'running' });
      expect(new Date(first.body.cron_next_run_at ?? '').getUTCMinutes()).toBe(0);

      // Same expression: the next run does not move.
      const d2 = await deploy(agent.name, job);
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d2.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await eventually(
        () => getDeployment(d2.id),
        (d) => d.state === 'active',
        'v2 active',
      );
      expect((await readAgent(server.kc, owner.namespace, agent.id)).status?.cronNextRunAt).toBe(
        first.body.cron_next_run_at,
      );

      // Paused (as the schedule pause route records it): the CronJob is suspended, there is no next run.
      const api = server.kc.makeApiClient(CustomObjectsApi);
      const coords = {
        group: API_GROUP,
        version: API_VERSION,
        namespace: owner.namespace,
        plural: PLURALS.Agent,
        name: agent.id,
      };
      // A merge patch: a read-then-replace races the operator's own writes to the Agent (409).
      await api.patchNamespacedCustomObject(
        { ...coords, body: { spec: { schedulePaused: true } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually(
        () =>
          k().batch.readNamespacedCronJob({
            namespace: owner.namespace,
            name: OBJECT_NAMES.cronJob(agent.id),
          }),
        (c) => c.spec?.suspend === true,
        'suspended',
      );

      // A new expression: recomputed; schedule: null removes the CronJob and clears the pause.
      const d3 = await deploy(agent.name, { ...job, 'svc.yaml': 'schedule: "*/30 * * * *"\n' });
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d3.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await eventually(
        () =>
          k().batch.readNamespacedCronJob({
            namespace: owner.namespace,
            name: OBJECT_NAMES.cronJob(agent.id),
          }),
        (c) => c.spec?.schedule === '*/30 * * * *',
        'new expression',
      );
      const d4 = await deploy(agent.name, { ...job, 'svc.yaml': 'schedule: null\n' });
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d4.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await eventually(
        async () => {
          try {
            await k().batch.readNamespacedCronJob({
              namespace: owner.namespace,
              name: OBJECT_NAMES.cronJob(agent.id),
            });
            return false;
          } catch (err) {
            return (err as { code?: number }).code === 404;
          }
        },
        (gone) => gone,
        'cronjob removed',
      );
      const cleared = await eventually(
        () =>
          call<{
            cron_schedule: string | null;
            cron_paused: boolean;
            cron_next_run_at: string | null;
          }>(server, 'GET', `/api/v1/agents/${agent.id}`, { key: owner.key }),
        (r) => r.body.cron_next_run_at === null,
        'cursor removed',
      );
      expect(cleared.body).toMatchObject({ cron_schedule: null, cron_paused: false });
    });
  });
});

describe('restart', () => {
  it('converges after a restart mid-deploy with exactly one build Job', async () => {
    const agent = await newAgent();
    const d = await runOperator({}, async () => {
      const created = await deploy(agent.name);
      await eventually(
        () => buildJobs(created.id),
        (jobs) => jobs.length === 1,
        'build job',
      );
      return created;
    });
    await runOperator({}, async (op) => {
      await eventually(
        () => getDeployment(d.id),
        (x) => x.state === 'building',
        'still building',
      );
      // A reconcile of the version by the new operator has run, and made no second build.
      await op.manager.reconcileNow('AgentDeployment', { namespace: owner.namespace, name: d.id });
      expect(await buildJobs(d.id)).toHaveLength(1);
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await readyPods(
        server.kc,
        owner.namespace,
        `${LABELS.agentId}=${agent.id},${LABELS.component}=service`,
      );
      await eventually(
        () => getDeployment(d.id),
        (x) => x.state === 'active',
        'active after restart',
      );
    });
  });
});

describe('runs', () => {
  it('runs a job agent once in a Job and completes, with machine times and duration, once across a restart', async () => {
    const agent = await newAgent({ agent_type: 'job' });
    const run = await runOperator({}, async () => {
      const d = await deploy(agent.name, { 'main.py': 'print("once")\n' });
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
        { succeeded: true },
      );
      await eventually(
        () => getDeployment(d.id),
        (x) => x.state === 'active',
        'job version active',
      );
      const cr = await readAgent(server.kc, owner.namespace, agent.id);
      const id = randomUUID();
      const api = server.kc.makeApiClient(CustomObjectsApi);
      // A run as the run route records it: an ephemeral deployment owned by the agent.
      await api.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: owner.namespace,
        plural: PLURALS.AgentDeployment,
        body: agentDeploymentResource(owner.namespace, agent.id, {
          metadata: {
            name: id,
            labels: { [LABELS.agentId]: agent.id },
            ownerReferences: [controllerRef(cr)],
          },
          spec: {
            version: 2,
            ephemeral: true,
            triggerSource: 'manual',
            config: await readRunConfig(d.id),
          },
        }),
      });
      await eventually(
        () =>
          k().batch.readNamespacedJob({
            namespace: owner.namespace,
            name: OBJECT_NAMES.runJob(id),
          }),
        () => true,
        'run job',
      );
      return id;
    });
    await runOperator({}, async () => {
      const job = await k().batch.readNamespacedJob({
        namespace: owner.namespace,
        name: OBJECT_NAMES.runJob(run),
      });
      const env = Object.fromEntries(
        (job.spec?.template.spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]),
      );
      expect(env).toMatchObject({ SVC_DEPLOYMENT_ID: run, SVC_MODE: 'run' });
      expect(env).not.toHaveProperty('SVC_SPAWN_ID');
      await finishPods(
        server.kc,
        owner.namespace,
        `${LABELS.deploymentId}=${run},${LABELS.component}=run`,
        { succeeded: true },
      );
      const done = await eventually(
        () => getDeployment(run),
        (x) => x.state === 'completed',
        'run completed',
      );
      expect(done.is_ephemeral).toBe(true);
      const jobs = await k().batch.listNamespacedJob({
        namespace: owner.namespace,
        labelSelector: `${LABELS.deploymentId}=${run}`,
      });
      expect(jobs.items).toHaveLength(1);
    });
  });
});

describe('workspaces', () => {
  it('counts the agents that declare a workspace', async () => {
    await runOperator({}, async () => {
      const api = server.kc.makeApiClient(CustomObjectsApi);
      const ws = workspaceResource(owner.namespace, 'counted');
      await api.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: owner.namespace,
        plural: PLURALS.Workspace,
        body: ws,
      });
      await newAgent({ workspace_name: 'counted' });
      await newAgent({ workspace_name: 'counted' });
      await newAgent({ workspace_name: 'other' });
      await eventually(
        async () =>
          (await api.getNamespacedCustomObject({
            group: API_GROUP,
            version: API_VERSION,
            namespace: owner.namespace,
            plural: PLURALS.Workspace,
            name: ws.metadata.name ?? '',
          })) as {
            status?: { agentCount?: number };
          },
        (w) => w.status?.agentCount === 2,
        'agent count',
      );
    });
  });
});

/** The configuration of a deployment, read from its resource. */
async function readRunConfig(id: string): Promise<AgentDeployment['spec']['config']> {
  const api = server.kc.makeApiClient(CustomObjectsApi);
  const d = (await api.getNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace: owner.namespace,
    plural: PLURALS.AgentDeployment,
    name: id,
  })) as AgentDeployment;
  return d.spec.config;
}
