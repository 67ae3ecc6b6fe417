/**
 * Scale to zero after idle_timeout_minutes unless keep_alive, woken by the
 * edge's activity mark; the dockerfile build Job; deleting an agent removes
 * what it ran (owner references, collected by the controller manager).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  API_GROUP,
  API_VERSION,
  LABELS,
  OBJECT_NAMES,
  PLURALS,
} from '../../crds/src/index.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
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

// The operator's clock, moved 10 minutes ahead at a time: an agent deployed before a move has
// been idle past its 5 minutes after it.
const AHEAD_MS = 10 * 60_000;
let aheadMs = 0;
const operatorNow = () => new Date(Date.now() + aheadMs);
let server: TestServer;
let owner: Caller;
let operator: RunningOperator;
let counter = 0;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  operator = await startOperator(server.kc, (ns) => ns === owner.namespace, {}, operatorNow);
});

afterAll(async () => {
  await operator.stop();
  await server.close();
});

const k = () => clients(server.kc);
const getDeployment = (id: string) =>
  call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );
const replicas = async (agentId: string) =>
  (
    await k().apps.readNamespacedDeployment({
      namespace: owner.namespace,
      name: OBJECT_NAMES.workload(agentId),
    })
  ).spec?.replicas;

async function deployed(
  extra: Record<string, unknown>,
): Promise<{ id: string; deployment: Deployment }> {
  const name = `idle-${++counter}`;
  const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  const d = (await deployFiles(server, owner.key, name, { 'main.py': PYTHON_SERVICE })).body;
  await finishPods(
    server.kc,
    owner.namespace,
    `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
    { succeeded: true },
  );
  await readyPods(
    server.kc,
    owner.namespace,
    `${LABELS.deploymentId}=${d.id},${LABELS.component}=service`,
  );
  await eventually(
    () => getDeployment(d.id),
    (x) => x.state === 'active',
    'active',
  );
  return { id: created.body.id, deployment: d };
}

describe('scale to zero', () => {
  it('scales an idle service to zero, and the edge activity mark wakes it', async () => {
    const { id } = await deployed({});
    aheadMs += AHEAD_MS;
    // Its next reconcile was due in 5 minutes of the old time: now, on the moved clock.
    await operator.manager.reconcileNow('Agent', { namespace: owner.namespace, name: id });
    await eventually(
      () => replicas(id),
      (r) => r === 0,
      'scaled to zero',
    );
    // Scaled to zero is still running: the edge wakes it on the next request.
    await eventually(
      () => call<{ status: string }>(server, 'GET', `/api/v1/agents/${id}`, { key: owner.key }),
      (r) => r.body.status === 'running',
      'running while scaled to zero',
    );

    // The activity mark as the edge writes it: a merge patch, which cannot conflict with the operator's writes.
    await server.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        namespace: owner.namespace,
        plural: PLURALS.Agent,
        name: id,
        body: {
          metadata: {
            annotations: {
              [ANNOTATIONS.lastActivity]: operatorNow().toISOString(),
            },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually(
      () => replicas(id),
      (r) => r === 1,
      'woken',
    );
    // Both recorded as Events about the agent, as kubectl describe finds them.
    const agent = await server.kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: owner.namespace,
      plural: PLURALS.Agent,
      name: id,
    });
    const uid = (agent as { metadata: { uid: string } }).metadata.uid;
    await eventually(
      async () =>
        (
          await server.kc.makeApiClient(CoreV1Api).listNamespacedEvent({
            namespace: owner.namespace,
            fieldSelector: `involvedObject.uid=${uid}`,
          })
        ).items.map((e) => e.reason),
      (reasons) => reasons.includes('ScaledToZero') && reasons.includes('Woken'),
      'ScaledToZero and Woken events',
    );
  });

  it('keeps a keep_alive service running', async () => {
    const { id } = await deployed({ keep_alive: true, tier: 'starter' });
    aheadMs += AHEAD_MS;
    // A reconcile on the clock moved 10 minutes ahead, past the idle timeout, has run.
    await operator.manager.reconcileNow('Agent', { namespace: owner.namespace, name: id });
    expect(await replicas(id)).toBe(1);
  });
});

describe('dockerfile build', () => {
  it('builds the image in the cluster with the configured image builder and registry', async () => {
    const name = `docker-${++counter}`;
    const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name, runtime: 'dockerfile', tier: 'starter' },
    });
    const d = (
      await deployFiles(server, owner.key, name, {
        Dockerfile: 'FROM python:3.12\nEXPOSE 8080\nUSER app\nCMD ["python", "server.py"]\n',
        'server.py': 'print("/health")\n',
      })
    ).body;
    const job = await eventually(
      () =>
        k().batch.readNamespacedJob({
          namespace: owner.namespace,
          name: OBJECT_NAMES.buildJob(d.id),
        }),
      () => true,
      'build job',
    );
    const build = job.spec?.template.spec?.containers[0];
    expect(build?.image).toBe(operator.cfg.images.imageBuilder);
    expect(build?.args).toContain(
      `--destination=${operator.cfg.imageRegistry}/${owner.namespace}/${created.body.id}:v1`,
    );
    await finishPods(
      server.kc,
      owner.namespace,
      `${LABELS.deploymentId}=${d.id},${LABELS.component}=build`,
      { succeeded: true },
    );
    const workload = await eventually(
      () =>
        k().apps.readNamespacedDeployment({
          namespace: owner.namespace,
          name: OBJECT_NAMES.workload(created.body.id),
        }),
      () => true,
      'workload',
    );
    const pod = workload.spec?.template.spec;
    expect(pod?.containers[0]?.image).toBe(
      `${operator.cfg.imageRegistry}/${owner.namespace}/${created.body.id}:v1`,
    );
    expect(pod?.initContainers ?? []).toEqual([]);
    expect(pod?.terminationGracePeriodSeconds).toBe(120);
  });
});

describe('delete', () => {
  it('removes the workload, Service and deployments with the agent', async () => {
    const { id, deployment } = await deployed({ keep_alive: true, tier: 'starter' });
    expect((await call(server, 'DELETE', `/api/v1/agents/${id}`, { key: owner.key })).status).toBe(
      202,
    );
    const gone = async (read: () => Promise<unknown>) => {
      try {
        await read();
        return false;
      } catch (err) {
        return (err as { code?: number }).code === 404;
      }
    };
    const ns = owner.namespace;
    await eventually(
      () =>
        gone(() =>
          k().apps.readNamespacedDeployment({ namespace: ns, name: OBJECT_NAMES.workload(id) }),
        ),
      (g) => g,
      'workload collected',
    );
    await eventually(
      () =>
        gone(() =>
          k().core.readNamespacedService({ namespace: ns, name: OBJECT_NAMES.workload(id) }),
        ),
      (g) => g,
      'service collected',
    );
    await eventually(
      () =>
        gone(() =>
          k().core.readNamespacedSecret({
            namespace: ns,
            name: OBJECT_NAMES.deploymentKeySecret(deployment.id),
          }),
        ),
      (g) => g,
      'key secret collected',
    );
  });
});
