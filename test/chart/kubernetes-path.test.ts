/**
 * The Kubernetes path end to end, with exactly the chart's RBAC: the chart is
 * installed into a kwok cluster, and the operator runs as a process with the
 * environment the chart gives its Deployment and a TokenRequest token of the
 * chart's `svc-operator` ServiceAccount; the control plane runs with a token of
 * `svc-apiserver`. Agents deployed through the REST API become Jobs,
 * Deployments, Services and CronJobs whose pods kwok schedules and runs.
 *
 * What kwok does not do: run anything inside a pod. The build Job's pod is
 * completed by kwok's pod-complete Stage, so no builder uploads an artifact
 * (the builder's upload through /internal is tested in
 * test/operator/builder-cli.test.ts), and a CronJob's trigger pod completes
 * without calling the API, so a firing is seen as the Job the CronJob
 * controller creates, not as a run record.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  NetworkingV1Api,
  type KubeConfig,
} from '@kubernetes/client-node';
import { LABELS, OBJECT_NAMES } from '../../crds/src/index.js';
import { readyLine, startReady } from '../../common/component-starter.js';
import { ProcessGroup, type ManagedProcess } from '../../common/processes.js';
import { repoRoot } from '../../hack/lib/paths.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles, type Deployment } from '../apiserver/deploy/deploy-helpers.js';
import { eventually } from '../operator/operator-harness.js';
import { readAgent } from '../apiserver/agents/operator-view.js';
import { startKwokCluster, type KwokCluster } from '../harness/kwok-cluster.js';
import { baseValues } from './helm.js';
import { installChart, RELEASE_NAMESPACE, serviceAccountKubeConfig } from './kwok-install.js';

// Each step waits on real controllers (builds, rollouts, a CronJob's minute).
jest.setTimeout(120_000);

let cluster: KwokCluster;
let dir: string;
let server: TestServer;
let owner: Caller;
let operator: ManagedProcess;
let admin: KubeConfig;
let group: ProcessGroup;

/** The chart's values for this cluster: its one region is the harness's `local`. */
const values = { ...baseValues, regions: [{ name: 'local' }] };

/** The operator container's environment as the installed chart sets it (plain values only). */
async function chartOperatorEnv(): Promise<Record<string, string>> {
  const deployment = await admin
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ namespace: RELEASE_NAMESPACE, name: 'svc-operator' });
  const env = deployment.spec?.template.spec?.containers[0]?.env ?? [];
  return Object.fromEntries(
    env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]),
  );
}

/** The internal secret the chart generated, as its pods would read it from the mounted Secret. */
async function chartInternalSecret(): Promise<string> {
  const secret = await admin
    .makeApiClient(CoreV1Api)
    .readNamespacedSecret({ namespace: RELEASE_NAMESPACE, name: 'svc-secrets' });
  return Buffer.from(secret.data?.['internal-secret'] ?? '', 'base64').toString();
}

beforeAll(async () => {
  cluster = await startKwokCluster('e2e', { nodes: 3 });
  admin = cluster.kc;
  await installChart(cluster, values);
  dir = await mkdtemp(join(tmpdir(), 'svc-kwok-e2e-'));
  group = new ProcessGroup(join(dir, 'logs'));
  const [operatorAccount, apiserverAccount] = await Promise.all([
    serviceAccountKubeConfig(cluster, 'svc-operator', dir),
    serviceAccountKubeConfig(cluster, 'svc-apiserver', dir),
  ]);
  const internalSecret = await chartInternalSecret();
  const secretFile = join(dir, 'internal-secret');
  await writeFile(secretFile, internalSecret, { mode: 0o600 });

  server = await startControlPlaneServer({
    kc: apiserverAccount.kc,
    regions: ['local'],
    internalSecret,
  });
  owner = await createCaller(server, { tier: 'performance' });
  ({ proc: operator } = await startReady(group, {
    name: 'operator',
    command: process.execPath,
    // The image's entry point (images/operator/Dockerfile).
    args: [join(repoRoot, 'operator', 'main.mjs')],
    cwd: repoRoot,
    env: {
      ...process.env,
      ...(await chartOperatorEnv()),
      KUBECONFIG: operatorAccount.path,
      SVC_INTERNAL_SECRET_FILE: secretFile,
      // No cluster DNS here: the API server's Service name becomes this test's server.
      SVC_INTERNAL_API_URL: server.base,
      // A pod has its own network; on this machine the chart's 0.0.0.0:9090 would collide.
      SVC_METRICS_HOST: '127.0.0.1',
      SVC_METRICS_PORT: '0',
      SVC_OPERATOR_LEASE_SECONDS: '5',
    },
    readyWhen: { line: readyLine('operator', 'identity') },
    timeoutMs: 30_000,
  }));
}, 180_000);

afterAll(async () => {
  await group?.stopAll();
  await server?.close();
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Agent = {
  id: string;
  name: string;
  status: string;
  deployed: boolean;
  url: string | null;
  failure_code: string | null;
};

const apps = () => admin.makeApiClient(AppsV1Api);
const batch = () => admin.makeApiClient(BatchV1Api);
const core = () => admin.makeApiClient(CoreV1Api);
const getAgent = (ref: string) =>
  call<Agent>(server, 'GET', `/api/v1/agents/${ref}`, { key: owner.key }).then((r) => r.body);
const waitAgent = (ref: string, accept: (a: Agent) => boolean, what: string) =>
  eventually(() => getAgent(ref), accept, what, 60_000);
const waitDeployment = (id: string, state: string) =>
  eventually(
    () =>
      call<Deployment>(server, 'GET', `/api/v1/deployments/${id}`, { key: owner.key }).then(
        (r) => r.body,
      ),
    (d) => d.state === state,
    `deployment ${id} ${state}`,
    60_000,
  );
const readWorkload = (agentId: string) =>
  apps().readNamespacedDeployment({
    namespace: owner.namespace,
    name: OBJECT_NAMES.workload(agentId),
  });

async function newAgent(name: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  const res = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function deploy(agent: string, files: Record<string, string>): Promise<Deployment> {
  const res = await deployFiles(server, owner.key, agent, files);
  expect(res.status).toBe(202);
  return res.body;
}

/** The pods of `selector` in the account's namespace, once all are Running on kwok nodes. */
async function runningPods(selector: string) {
  return eventually(
    async () =>
      (
        await core().listNamespacedPod({ namespace: owner.namespace, labelSelector: selector })
      ).items.map((p) => ({
        name: p.metadata?.name,
        phase: p.status?.phase,
        node: p.spec?.nodeName,
        deleting: Boolean(p.metadata?.deletionTimestamp),
      })),
    (pods) =>
      pods.length > 0 &&
      pods.every((p) => p.phase === 'Running' && cluster.nodes.includes(p.node ?? '')),
    `pods ${selector} running`,
    60_000,
  );
}

const JOB = { 'main.py': 'print("done")\n' };

describe('the Kubernetes path with the chart’s RBAC', () => {
  let service: Agent;
  let serviceDeployment: Deployment;

  it('the operator process holds the chart’s leader Lease', async () => {
    const lease = await eventually(
      () =>
        admin
          .makeApiClient(CoordinationV1Api)
          .readNamespacedLease({ namespace: RELEASE_NAMESPACE, name: 'svc-operator' }),
      (l) => Boolean(l.spec?.holderIdentity),
      'the Lease',
    );
    const log = await readFile(operator.logFile, 'utf8');
    expect(log).toContain(lease.spec!.holderIdentity!);
  });

  it('deploys a service: build Job, Deployment and Service, pods Running, agent running with its URL', async () => {
    service = await newAgent('kwok-web');
    serviceDeployment = await deploy(service.name, { 'main.py': PYTHON_SERVICE });
    const build = await eventually(
      () =>
        batch().readNamespacedJob({
          namespace: owner.namespace,
          name: OBJECT_NAMES.buildJob(serviceDeployment.id),
        }),
      (job) => (job.status?.succeeded ?? 0) > 0,
      'the build Job to complete',
      60_000,
    );
    expect(build.metadata?.labels?.[LABELS.component]).toBe('build');
    await eventually(
      () => readWorkload(service.id),
      () => true,
      'the workload',
    );
    await eventually(
      () =>
        core().readNamespacedService({
          namespace: owner.namespace,
          name: OBJECT_NAMES.workload(service.id),
        }),
      () => true,
      'the Service',
    );
    await runningPods(`${LABELS.agentId}=${service.id},${LABELS.component}=service`);
    await waitDeployment(serviceDeployment.id, 'active');
    const running = await waitAgent(service.id, (a) => a.status === 'running', 'agent running');
    expect(running.deployed).toBe(true);
    expect(running.url).toMatch(/^https:\/\/kwok-web-[a-z0-9]{6}\.agents\.example\.com$/);
    // The operator's NetworkPolicies confine the account's namespace.
    const policies = await admin
      .makeApiClient(NetworkingV1Api)
      .listNamespacedNetworkPolicy({ namespace: owner.namespace });
    expect(policies.items.length).toBeGreaterThan(0);
  });

  it('reports a deleted Deployment as app_lost_on_provider, and a redeploy restores it', async () => {
    // An agent of its own, settled: the operator has seen its active version's workload
    // (what makes the workload's disappearance a loss rather than a rollout in progress).
    const lost = await newAgent('kwok-lost');
    const first = await deploy(lost.name, { 'main.py': PYTHON_SERVICE });
    await waitDeployment(first.id, 'active');
    await waitAgent(lost.id, (a) => a.status === 'running', 'agent running');
    await eventually(
      () => readAgent(admin, owner.namespace, lost.id),
      (a) =>
        a.status?.workloadVersion === first.version && a.status.activeDeploymentId === first.id,
      'the workload of the active version seen',
    );
    await apps().deleteNamespacedDeployment({
      namespace: owner.namespace,
      name: OBJECT_NAMES.workload(lost.id),
    });
    const reported = await waitAgent(
      lost.id,
      (a) => a.failure_code === 'app_lost_on_provider',
      'app lost',
    );
    expect(reported).toMatchObject({ status: 'failed', deployed: false });
    const redeploy = await deploy(lost.id, { 'main.py': PYTHON_SERVICE });
    await waitDeployment(redeploy.id, 'active');
    await runningPods(
      `${LABELS.agentId}=${lost.id},${LABELS.deploymentId}=${redeploy.id},${LABELS.component}=service`,
    );
    await waitAgent(lost.id, (a) => a.status === 'running' && a.failure_code === null, 'recovered');
  });

  it('runs a job agent: the run becomes a Job that completes, and shows as completed in runs', async () => {
    const job = await newAgent('kwok-job', { agent_type: 'job' });
    const d = await deploy(job.name, JOB);
    await waitDeployment(d.id, 'active');
    const started = await call<{ deployment_id: string }>(
      server,
      'POST',
      `/api/v1/agents/${job.id}/run`,
      {
        key: owner.key,
        body: { payload: { n: 1 } },
      },
    );
    expect(started.status).toBe(202);
    const runJob = await eventually(
      () =>
        batch().readNamespacedJob({
          namespace: owner.namespace,
          name: OBJECT_NAMES.runJob(started.body.deployment_id),
        }),
      (j) => (j.status?.succeeded ?? 0) > 0,
      'the run Job to complete',
      60_000,
    );
    expect(runJob.metadata?.labels?.[LABELS.component]).toBe('run');
    await waitDeployment(started.body.deployment_id, 'completed');
    const runs = await call<{ items: Array<{ id: string; state: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${job.id}/runs`,
      { key: owner.key },
    );
    expect(runs.body.items).toContainEqual(
      expect.objectContaining({ id: started.body.deployment_id, state: 'completed' }),
    );
  });

  it('turns a schedule into a CronJob that fires', async () => {
    const ticker = await newAgent('kwok-tick', { agent_type: 'job' });
    // Hourly (the contract's minimum interval is 5 minutes), at the coming minute, so it fires soon.
    const now = new Date();
    const minute = (now.getUTCMinutes() + (now.getUTCSeconds() < 45 ? 1 : 2)) % 60;
    const schedule = `${minute} * * * *`;
    const d = await deploy(ticker.name, { ...JOB, 'svc.yaml': `schedule: "${schedule}"\n` });
    await waitDeployment(d.id, 'active');
    const name = OBJECT_NAMES.cronJob(ticker.id);
    await eventually(
      () => batch().readNamespacedCronJob({ namespace: owner.namespace, name }),
      (c) => c.spec?.schedule === schedule && c.spec.suspend !== true,
      'the CronJob',
    );
    // The CronJob controller creates a Job at that minute; kwok completes its pod.
    const fired = await eventually(
      () => batch().listNamespacedJob({ namespace: owner.namespace }),
      (list) =>
        list.items.some(
          (j) =>
            j.metadata?.ownerReferences?.some((o) => o.kind === 'CronJob' && o.name === name) &&
            (j.status?.succeeded ?? 0) > 0,
        ),
      'the CronJob to fire',
      150_000,
    );
    expect(fired.items.length).toBeGreaterThan(0);
  }, 180_000);

  it('stop and start scale the workload; archive removes it and restore brings it back', async () => {
    const stop = await call(server, 'POST', `/api/v1/agents/${service.id}/stop`, {
      key: owner.key,
    });
    expect(stop.body).toMatchObject({ status: 'paused' });
    await eventually(
      () => readWorkload(service.id),
      (w) => w.spec?.replicas === 0 && (w.status?.replicas ?? 0) === 0,
      'scaled to zero',
    );
    await waitAgent(service.id, (a) => a.status === 'paused', 'agent paused');
    await call(server, 'POST', `/api/v1/agents/${service.id}/start`, { key: owner.key });
    await runningPods(`${LABELS.agentId}=${service.id},${LABELS.component}=service`);
    await waitAgent(service.id, (a) => a.status === 'running', 'agent running again');

    await call(server, 'POST', `/api/v1/agents/${service.id}/archive`, { key: owner.key });
    await waitAgent(service.id, (a) => a.status === 'archived' && a.url === null, 'archived');
    await expect(readWorkload(service.id)).rejects.toMatchObject({ code: 404 });
    await call(server, 'POST', `/api/v1/agents/${service.id}/restore`, { key: owner.key });
    await runningPods(`${LABELS.agentId}=${service.id},${LABELS.component}=service`);
    await waitAgent(service.id, (a) => a.status === 'running' && a.deployed, 'restored');
  });

  it('deletes the agent: its workload and Service go with it', async () => {
    const res = await call(server, 'DELETE', `/api/v1/agents/${service.id}`, { key: owner.key });
    expect(res.status).toBeLessThan(300);
    await eventually(
      () => apps().listNamespacedDeployment({ namespace: owner.namespace }),
      (list) => !list.items.some((d) => d.metadata?.name === OBJECT_NAMES.workload(service.id)),
      'the workload to go',
      60_000,
    );
    await eventually(
      () => core().listNamespacedService({ namespace: owner.namespace }),
      (list) => !list.items.some((s) => s.metadata?.name === OBJECT_NAMES.workload(service.id)),
      'the Service to go',
      60_000,
    );
  });
});
