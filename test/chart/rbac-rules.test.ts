/**
 * Every rule of the chart's roles is needed: with the chart's RBAC applied to
 * the harness's kube-apiserver, each component's own code, authenticated by a
 * TokenRequest token of its ServiceAccount, does one thing it does in the
 * flow (the operator through its Kubernetes driver, resource client and
 * leader elector; the API server through its REST routes). All of them pass
 * with the roles as rendered; with any one rule removed, the probe of that
 * rule fails (kubernetes-path.test.ts shows the rules are enough).
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, LABELS, PLURALS, type Agent } from '../../crds/src/index.js';
import type { AgentDeployment } from '../../crds/src/index.js';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { podSource } from '../../common/kube/informer.js';
import { LeaderElector } from '../../common/kube/leader-election.js';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { loadOperatorConfig } from '../../operator/src/config.js';
import { KubernetesDriver } from '../../operator/src/drivers/kubernetes/kubernetes-driver.js';
import { KubeEventRecorder } from '../../operator/src/events/event-recorder.js';
import { PYTHON_SERVICE } from '../factories/archives.js';
import { agentDeploymentResource, agentResource } from '../factories/custom-resources.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { deployFiles } from '../apiserver/deploy/deploy-helpers.js';
import { createNamespace, kubeConfig, uniqueSuffix } from '../harness/env.js';
import { waitFor } from '../harness/wait.js';
import { renderChart, baseValues, type Manifest } from './helm.js';

jest.setTimeout(120_000);

const prefix = `rbac-${uniqueSuffix()}`;
let admin: KubeConfig;
let releaseNamespace: string;
let tenant: string;
let dir: string;
let roles: Manifest[];
let operatorKc: KubeConfig;
let server: TestServer;
const log = createLogger('rbac-test', 'silent');

/** A KubeConfig with a TokenRequest token of the ServiceAccount `name`. */
async function tokenKubeConfig(name: string): Promise<KubeConfig> {
  const token = await admin.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace: releaseNamespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'harness', server: cluster.server, caData: cluster.caData }],
    users: [{ name, token: token.status?.token }],
    contexts: [{ name, cluster: 'harness', user: name }],
    currentContext: name,
  });
  return kc;
}

/** Admin-made objects an operator acts on: an Agent and its AgentDeployment. */
async function agentAndDeployment(): Promise<{ agent: Agent; deployment: AgentDeployment }> {
  // With a schedule, so the same pair serves a CronJob too.
  const api = admin.makeApiClient(CustomObjectsApi);
  const coords = { group: API_GROUP, version: API_VERSION, namespace: tenant };
  const agent = (await api.createNamespacedCustomObject({
    ...coords,
    plural: PLURALS.Agent,
    body: agentResource(tenant, { name: `probe-${uniqueSuffix()}`, schedule: '0 * * * *' }),
  })) as Agent;
  const deployment = (await api.createNamespacedCustomObject({
    ...coords,
    plural: PLURALS.AgentDeployment,
    body: agentDeploymentResource(tenant, agent.metadata.name),
  })) as AgentDeployment;
  return { agent, deployment };
}

const operatorDriver = () =>
  new KubernetesDriver(operatorKc, {
    ...loadOperatorConfig({ SVC_INTERNAL_SECRET: generateSecret() }),
    internalApiUrl: 'http://svc-apiserver.test:8000',
  });

/** One thing a component does with its token; resolves when the cluster let it. */
type Probe = () => Promise<void>;

const probes: Record<string, Probe> = {
  'operator reads custom resources': async () => {
    const { agent } = await agentAndDeployment();
    const read = await new CustomResourceClient(operatorKc).get(
      'Agent',
      tenant,
      agent.metadata.name!,
    );
    expect(read?.metadata.name).toBe(agent.metadata.name);
  },
  'operator writes custom resources’ status': async () => {
    const { agent } = await agentAndDeployment();
    agent.status = { ...agent.status } as Agent['status'];
    await new CustomResourceClient(operatorKc).writeStatus('Agent', agent);
  },
  'operator applies a service: Deployment and Service': async () => {
    const { agent, deployment } = await agentAndDeployment();
    await operatorDriver().applyService(agent, deployment, 1);
    expect((await operatorDriver().serviceStatus(agent)).exists).toBe(true);
  },
  'operator starts a build Job (after the namespace’s NetworkPolicies) and a schedule':
    async () => {
      const { agent, deployment } = await agentAndDeployment();
      const driver = operatorDriver();
      await driver.startBuild(agent, deployment);
      expect((await driver.buildStatus(deployment)).phase).not.toBe('missing');
      await driver.applySchedule(agent, deployment, true);
    },
  'operator takes its leader Lease': async () => {
    // It leads, or the cluster refuses an attempt (403: no rule lets it read or write the
    // lease); other failures, a slow answer, are tried again until the deadline.
    let outcome: { leading: true } | { failed: unknown } | undefined;
    let decided = () => {};
    const elector = new LeaderElector({
      kubeConfig: operatorKc,
      namespace: releaseNamespace,
      name: `${prefix}-operator`,
      leaseDurationSeconds: 2,
      logger: log,
      onStartedLeading: () => {
        outcome = { leading: true };
        decided();
      },
      onStoppedLeading: () => undefined,
      onAttemptFailed: (err) => {
        if ((err as { code?: unknown }).code !== 403) return;
        outcome ??= { failed: err };
        decided();
      },
    });
    elector.start();
    try {
      // A lease a previous probe's elector could not release is taken once it expires (2 s).
      const seen = await waitFor('the elector to lead, or be refused the lease', () => outcome, {
        timeoutMs: 4000,
        wakeOn: (changed) => {
          decided = changed;
          return () => (decided = () => {});
        },
      });
      if ('failed' in seen) throw seen.failed;
    } finally {
      await elector.stop();
    }
  },
  'API server creates an account’s namespace and agent, deploys (status warnings), sets a secret':
    async () => {
      const owner = await createCaller(server);
      const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
        key: owner.key,
        body: { name: `probe-${uniqueSuffix()}` },
      });
      expect(created.status).toBe(201);
      // No svc.yaml: the deployment records a warning in its status.
      const deployed = await deployFiles(server, owner.key, created.body.id, {
        'main.py': PYTHON_SERVICE,
      });
      expect(deployed.status).toBe(202);
      const secret = await call(server, 'POST', `/api/v1/agents/${created.body.id}/secrets`, {
        key: owner.key,
        body: { key: 'TOKEN', value: 'probe-value' },
      });
      expect(secret.status).toBe(201);
    },
  'API server reads an agent’s pods live': async () => {
    const owner = await createCaller(server);
    const created = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: `probe-${uniqueSuffix()}` },
    });
    await admin.makeApiClient(CoreV1Api).createNamespacedPod({
      namespace: owner.namespace,
      body: {
        metadata: { name: 'probe', labels: { [LABELS.agentId]: created.body.id } },
        spec: { containers: [{ name: 'c', image: 'probe' }] },
      },
    });
    const agent = await call<{ machines: Array<{ source: string }> }>(
      server,
      'GET',
      `/api/v1/agents/${created.body.id}/status`,
      { key: owner.key },
    );
    expect(agent.body.machines).toEqual([expect.objectContaining({ source: 'live' })]);
  },
  'operator lists service pods to meter them': async () => {
    // The list the operator's pod-usage informer starts with (operator/src/drivers/kubernetes/pod-usage.ts).
    const list = await podSource(operatorKc, `${LABELS.component}=service`).listFn();
    expect(Array.isArray(list.items)).toBe(true);
  },
  'operator reads agent pods’ logs to ship them': async () => {
    // kwok's nodes serve no logs, so the probe is the authorizer's answer for the operator
    // itself (pod-logs.ts reads GET pods/{name}/log; test/cluster reads real ones).
    const review = await operatorKc
      .makeApiClient(AuthorizationV1Api)
      .createSelfSubjectAccessReview({
        body: {
          spec: {
            resourceAttributes: {
              namespace: tenant,
              verb: 'get',
              resource: 'pods',
              subresource: 'log',
            },
          },
        },
      });
    if (!review.status?.allowed) throw new Error('the operator may not read pods/log');
  },
  'operator records an Event about an agent, and counts its repeat in the series': async () => {
    const { agent } = await agentAndDeployment();
    // The recorder logs a refused write and goes on; the Event's absence is what fails here.
    const recorder = new KubeEventRecorder(operatorKc, log);
    const event = { type: 'Normal', reason: 'Probed', note: 'rbac probe' } as const;
    recorder.record({ kind: 'Agent', metadata: agent.metadata }, event);
    recorder.record({ kind: 'Agent', metadata: agent.metadata }, event);
    await recorder.flush();
    // As kubectl describe finds it: core/v1 Events of the object's uid.
    const events = await admin.makeApiClient(CoreV1Api).listNamespacedEvent({
      namespace: tenant,
      fieldSelector: `involvedObject.uid=${agent.metadata.uid}`,
    });
    expect(events.items.map((e) => [e.reason, e.series?.count ?? e.count])).toEqual([
      ['Probed', 2],
    ]);
  },
};

/** Runs every probe; those that failed: each its name, then the start of its error. */
async function failingProbes(): Promise<string[]> {
  const failed: string[] = [];
  for (const [name, probe] of Object.entries(probes)) {
    await probe().catch((err: unknown) => failed.push(`${name}\n  ${String(err).slice(0, 300)}`));
  }
  return failed;
}

const subjectOf = (role: Manifest) =>
  role.metadata!.name!.includes('operator') ? `${prefix}-operator` : `${prefix}-apiserver`;

/** Waits until the authorizer answers `allowed` for the first verb and resource of `rule`. */
async function untilAuthorized(role: Manifest, rule: V1PolicyRule, allowed: boolean) {
  const subject = subjectOf(role);
  const namespace = role.kind === 'Role' ? releaseNamespace : tenant;
  const api = admin.makeApiClient(AuthorizationV1Api);
  const [resource, subresource] = (rule.resources?.[0] ?? '').split('/');
  await waitFor(
    `the authorizer to ${allowed ? 'allow' : 'deny'} ${rule.verbs[0]} ${rule.resources?.[0]} to ${subject}`,
    async () => {
      const review = await api.createSubjectAccessReview({
        body: {
          spec: {
            user: `system:serviceaccount:${releaseNamespace}:${subject}`,
            resourceAttributes: {
              group: rule.apiGroups?.[0],
              resource,
              subresource,
              verb: rule.verbs[0],
              namespace,
            },
          },
        },
      });
      return Boolean(review.status?.allowed) === allowed;
    },
    // RBAC changes reach the authorizer through its own informers; no event says when.
    { timeoutMs: 10_000, everyMs: 50 },
  );
}

beforeAll(async () => {
  admin = kubeConfig();
  releaseNamespace = await createNamespace(admin, 'rbac-release');
  tenant = await createNamespace(admin, 'rbac-tenant');
  dir = await mkdtemp(join(tmpdir(), 'svc-rbac-'));
  const rendered = await renderChart(
    { ...baseValues, fullnameOverride: prefix, regions: [{ name: 'local' }] },
    releaseNamespace,
  );
  const rbacKinds = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
  const objects = KubernetesObjectApi.makeApiClient(admin);
  for (const object of rendered.filter((o) => rbacKinds.includes(o.kind ?? ''))) {
    await objects.create(object);
  }
  roles = rendered.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role');
  operatorKc = await tokenKubeConfig(`${prefix}-operator`);
  server = await startControlPlaneServer({
    kc: await tokenKubeConfig(`${prefix}-apiserver`),
    regions: ['local'],
  });
});

afterAll(async () => {
  await server?.close();
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  for (const role of roles ?? []) {
    if (role.kind === 'ClusterRole') {
      await rbac.deleteClusterRole({ name: role.metadata!.name! }).catch(() => undefined);
      await rbac.deleteClusterRoleBinding({ name: role.metadata!.name! }).catch(() => undefined);
    }
  }
  for (const namespace of [releaseNamespace, tenant]) {
    if (namespace) await admin.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
  }
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every rule of the chart's roles, named `Kind/name #index`. */
function everyRule(): Array<{ label: string; role: Manifest; index: number }> {
  return roles.flatMap((role) =>
    (role.rules as V1PolicyRule[]).map((rule, index) => ({
      label: `${role.kind}/${role.metadata?.name} #${index} (${rule.resources?.join(',')}: ${rule.verbs.join(',')})`,
      role,
      index,
    })),
  );
}

/** Replaces `role` in the cluster with `rules`. */
async function writeRole(role: Manifest, rules: V1PolicyRule[]): Promise<void> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const name = role.metadata!.name!;
  if (role.kind === 'ClusterRole') {
    const live = await rbac.readClusterRole({ name });
    await rbac.replaceClusterRole({ name, body: { ...live, rules } });
  } else {
    const namespace = role.metadata!.namespace!;
    const live = await rbac.readNamespacedRole({ name, namespace });
    await rbac.replaceNamespacedRole({ name, namespace, body: { ...live, rules } });
  }
}

describe('the chart’s roles', () => {
  it('let every probe pass as rendered', async () => {
    expect(roles.length).toBe(3);
    expect(await failingProbes()).toEqual([]);
  });

  it('fail a probe whenever any one rule is removed', async () => {
    const rules = everyRule();
    expect(rules.length).toBe(15);
    const unnoticed: string[] = [];
    const observed: Record<string, string[]> = {};
    for (const { label, role, index } of rules) {
      const all = role.rules as V1PolicyRule[];
      const removed = all[index]!;
      await writeRole(
        role,
        all.filter((_, i) => i !== index),
      );
      await untilAuthorized(role, removed, false);
      const failed = await failingProbes();
      if (failed.length === 0) unnoticed.push(label);
      observed[label] = failed.map((f) => f.split('\n')[0]!);
      await writeRole(role, all);
      await untilAuthorized(role, removed, true);
    }
    expect(unnoticed).toEqual([]);
    // And it is the probe of what the rule grants that fails, not something else.
    const by = (role: string, index: number) =>
      Object.entries(observed).find(([label]) => label.includes(`${role} #${index} `))?.[1];
    const [crs, status, service, build, lease] = Object.keys(probes);
    const [apiWrites, apiPods, podsWatch, podLogs, events] = Object.keys(probes).slice(5);
    expect(by('-operator', 0)).toEqual([crs]);
    expect(by('-operator', 1)).toEqual([status]);
    expect(by('-operator', 2)).toEqual([service]);
    expect(by('-operator', 3)).toEqual([build]);
    expect(by('-operator', 4)).toEqual([service]);
    expect(by('-operator', 5)).toEqual([service, build]);
    expect(by('-operator', 6)).toEqual([podsWatch]);
    expect(by('-operator', 7)).toEqual([podLogs]);
    expect(by('-operator', 8)).toEqual([events]);
    expect(by('-operator-leader-election', 0)).toEqual([lease]);
    expect(by('-apiserver', 1)).toEqual([apiWrites]);
    expect(by('-apiserver', 2)).toEqual([apiPods]);
    expect(by('-apiserver', 4)).toEqual([apiWrites]);
  }, 600_000);
});
