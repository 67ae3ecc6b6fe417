/**
 * ResilientInformer against the real kube-apiserver: events, label selectors, the
 * typed sources, and recovery from failed lists and broken watch connections.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1ConfigMap,
  type V1Deployment,
} from '@kubernetes/client-node';
import { createLogger } from '../../common/logger.js';
import {
  API_GROUP,
  API_VERSION,
  LABELS,
  MANAGED_BY,
  PLURALS,
  type Agent,
} from '../../crds/src/index.js';
import { ownerKeyOf, type ObjectWithMeta } from '../../common/kube/owner.js';
import { controllerRef } from '../../crds/src/owner-reference.js';
import {
  configMapSource,
  cronJobSource,
  customResourceSource,
  deploymentSource,
  jobSource,
  ResilientInformer,
  type InformerSource,
  type ResilientInformerOptions,
} from '../../common/kube/informer.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig, uniqueSuffix } from '../harness/env.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { waitFor, type ChangeSource } from '../harness/wait.js';

let kc: KubeConfig;
let namespace: string;
let core: CoreV1Api;
const informers: Array<{ stop(): Promise<void> }> = [];
const proxies: TcpProxy[] = [];

/** Every event of one informer about objects in this file's namespace. */
interface Recorder<T extends ObjectWithMeta> {
  informer: ResilientInformer<T>;
  events: Array<{ type: 'add' | 'update' | 'delete'; obj: T }>;
  errors: unknown[];
  /** How many times it started to list and watch, and how many watch requests ended. */
  connects: number;
  disconnects: number;
  names(type: 'add' | 'update' | 'delete'): string[];
}

/** Waits woken by the recorders, each time one records something. */
const waiting = new Set<() => void>();
const recorded: ChangeSource = (changed) => {
  waiting.add(changed);
  return () => waiting.delete(changed);
};
const notify = () => waiting.forEach((changed) => changed());

function record<T extends ObjectWithMeta>(
  source: InformerSource<T>,
  cluster: KubeConfig = kc,
  options: ResilientInformerOptions = {},
): Recorder<T> {
  const informer = new ResilientInformer(cluster, source, {
    logger: createLogger('test', 'silent'),
    ...options,
  });
  informers.push(informer);
  const recorder: Recorder<T> = {
    informer,
    events: [],
    errors: [],
    connects: 0,
    disconnects: 0,
    names: (type) =>
      recorder.events.filter((e) => e.type === type).map((e) => e.obj.metadata?.name ?? ''),
  };
  for (const type of ['add', 'update', 'delete'] as const) {
    informer.on(type, (obj) => {
      // Informers are cluster-wide; other test files work in other namespaces.
      if (obj.metadata?.namespace === namespace) recorder.events.push({ type, obj });
      notify();
    });
  }
  informer.on('error', (err) => {
    recorder.errors.push(err);
    notify();
  });
  informer.on('connect', () => {
    recorder.connects += 1;
    notify();
  });
  informer.on('disconnect', () => {
    recorder.disconnects += 1;
    notify();
  });
  return recorder;
}

/** Waits for `check`, checked again at each thing a recorder records; fails naming `what`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  await waitFor(what, check, { timeoutMs: ms, wakeOn: recorded });
}

function configMap(name: string, labels: Record<string, string> = {}): V1ConfigMap {
  return { metadata: { name, namespace, labels }, data: { n: '0' } };
}

const managed = { [LABELS.managedBy]: MANAGED_BY };

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'watch');
  core = kc.makeApiClient(CoreV1Api);
});

afterEach(async () => {
  await Promise.all(informers.splice(0).map((informer) => informer.stop()));
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

afterAll(async () => {
  await core.deleteNamespace({ name: namespace });
});

describe('ResilientInformer', () => {
  it('sees add, update and delete of an Agent, and caches it meanwhile', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const agents = record(
      customResourceSource<Agent>(kc, { group: API_GROUP, version: API_VERSION, plural: 'agents' }),
    );
    agents.informer.start();
    await agents.informer.synced;

    const agent = agentResource(namespace);
    const name = agent.metadata.name as string;
    const target = { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };
    const created = (await api.createNamespacedCustomObject({ ...target, body: agent })) as Agent;
    await until(() => agents.names('add').includes(name), 5000, 'the add');
    expect(agents.informer.get(namespace, name)?.spec.name).toBe('hello');

    await api.replaceNamespacedCustomObject({
      ...target,
      name,
      body: { ...created, spec: { ...created.spec, memoryMb: 512 } },
    });
    await until(() => agents.names('update').includes(name), 5000, 'the update');
    expect(agents.informer.get(namespace, name)?.spec.memoryMb).toBe(512);
    expect(agents.informer.list().map((a) => a.metadata.name)).toContain(name);

    await api.deleteNamespacedCustomObject({ ...target, name });
    await until(() => agents.names('delete').includes(name), 5000, 'the delete');
    expect(agents.informer.get(namespace, name)).toBeUndefined();
    expect(agents.errors).toEqual([]);
  });

  it('caches every custom object of a collection listed over several pages', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const target = { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const agent = agentResource(namespace);
      names.push(agent.metadata.name as string);
      await api.createNamespacedCustomObject({ ...target, body: agent });
    }
    const agents = record(
      customResourceSource<Agent>(
        kc,
        { group: API_GROUP, version: API_VERSION, plural: 'agents' },
        undefined,
        2,
      ),
    );
    agents.informer.start();
    await agents.informer.synced;
    const cached = agents.informer.listIn(namespace).map((a) => a.metadata.name);
    // Only these: the case before deleted its agent.
    expect([...cached].sort()).toEqual([...names].sort());
    await Promise.all(names.map((name) => api.deleteNamespacedCustomObject({ ...target, name })));
  });

  it('stores listed and watched objects as its transform returns them', async () => {
    const api = kc.makeApiClient(CustomObjectsApi);
    const target = { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };
    const listed = agentResource(namespace);
    await api.createNamespacedCustomObject({ ...target, body: listed });
    const agents = record(
      customResourceSource<Agent>(kc, { group: API_GROUP, version: API_VERSION, plural: 'agents' }),
      kc,
      {
        transform: (obj) => {
          delete (obj.metadata as { managedFields?: unknown }).managedFields;
          return obj;
        },
      },
    );
    agents.informer.start();
    await agents.informer.synced;
    const watched = agentResource(namespace);
    await api.createNamespacedCustomObject({ ...target, body: watched });
    await until(
      () => agents.names('add').includes(watched.metadata.name as string),
      5000,
      'the add',
    );
    // The API server sets managedFields on every create; the cache holds none.
    const fromApi = (await api.getNamespacedCustomObject({
      ...target,
      name: watched.metadata.name as string,
    })) as { metadata: { managedFields?: unknown[] } };
    expect(fromApi.metadata.managedFields?.length).toBeGreaterThan(0);
    for (const name of [listed.metadata.name, watched.metadata.name] as string[]) {
      const cached = agents.informer.get(namespace, name);
      expect(cached?.metadata.name).toBe(name);
      expect(cached?.metadata).not.toHaveProperty('managedFields');
    }
    await api.deleteNamespacedCustomObject({ ...target, name: listed.metadata.name as string });
    await api.deleteNamespacedCustomObject({ ...target, name: watched.metadata.name as string });
  });

  it('lists existing objects as adds, only those matching the label selector', async () => {
    await core.createNamespacedConfigMap({ namespace, body: configMap('pre-managed', managed) });
    await core.createNamespacedConfigMap({ namespace, body: configMap('pre-other') });
    const maps = record(configMapSource(kc, `${LABELS.managedBy}=${MANAGED_BY}`));
    maps.informer.start();
    await maps.informer.synced;
    expect(maps.names('add')).toEqual(['pre-managed']);
    const listed = maps.informer.get(namespace, 'pre-managed');
    // Listed objects have the shape watch events have: kind set, timestamps as strings.
    expect(listed?.kind).toBe('ConfigMap');
    expect(listed?.apiVersion).toBe('v1');
    expect(typeof listed?.metadata?.creationTimestamp).toBe('string');
    expect(maps.informer.get(namespace, 'pre-other')).toBeUndefined();

    await core.createNamespacedConfigMap({ namespace, body: configMap('post-other') });
    await core.createNamespacedConfigMap({ namespace, body: configMap('post-managed', managed) });
    await until(() => maps.names('add').includes('post-managed'), 5000, 'the add');
    expect(maps.names('add')).not.toContain('post-other');
    expect(maps.informer.get(namespace, 'post-managed')?.kind).toBe('ConfigMap');
  });

  it('restarts with backoff when its list fails, then syncs', async () => {
    const source = configMapSource(kc);
    let lists = 0;
    const flaky: InformerSource<V1ConfigMap> = {
      ...source,
      listFn: async () => {
        lists += 1;
        if (lists === 1) throw new Error('apiserver unavailable');
        return source.listFn();
      },
    };
    const maps = record(flaky, kc, { initialBackoffMs: 300 });
    const startedAt = performance.now();
    maps.informer.start();
    await maps.informer.synced;
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(250);
    expect(lists).toBe(2);
    expect(maps.errors).toHaveLength(1);
    expect(String(maps.errors[0])).toContain('apiserver unavailable');

    const name = `after-${uniqueSuffix()}`;
    await core.createNamespacedConfigMap({ namespace, body: configMap(name) });
    await until(() => maps.names('add').includes(name), 5000, 'an add after the restart');
  });

  it('reconnects after its watch connection breaks, and catches up on what it missed', async () => {
    const proxy = await startTcpProxy(kc);
    proxies.push(proxy);
    const source = configMapSource(proxy.kubeConfig());
    let lists = 0;
    const counted = { ...source, listFn: () => ((lists += 1), source.listFn()) };
    const maps = record(counted, proxy.kubeConfig(), { initialBackoffMs: 200 });
    maps.informer.start();
    await maps.informer.synced;

    // The apiserver becomes unreachable: the open watch is reset, reconnects are refused.
    proxy.setMode('refuse');
    proxy.dropConnections();
    await until(() => maps.errors.length >= 1, 5000, 'the watch to fail');
    const witness = record(configMapSource(kc));
    witness.informer.start();
    await witness.informer.synced;
    const missed = `missed-${uniqueSuffix()}`;
    await core.createNamespacedConfigMap({ namespace, body: configMap(missed) });
    // An informer with a working connection has the add: the one cut off has not.
    await until(() => witness.names('add').includes(missed), 5000, 'the witness to see the add');
    expect(maps.names('add')).not.toContain(missed);

    proxy.setMode('forward');
    await until(() => maps.names('add').includes(missed), 10_000, 'the missed add');
    const after = `after-${uniqueSuffix()}`;
    await core.createNamespacedConfigMap({ namespace, body: configMap(after) });
    await until(() => maps.names('add').includes(after), 5000, 'an add after reconnecting');
    // It resumed the watch from its resourceVersion instead of listing again.
    expect(lists).toBe(1);
  });

  it('resumes without an error or a new list when the server ends a watch', async () => {
    const source = configMapSource(kc);
    let lists = 0;
    const counted = { ...source, listFn: () => ((lists += 1), source.listFn()) };
    const maps = record(counted, kc, { watchTimeoutSeconds: 1 });
    maps.informer.start();
    await maps.informer.synced;
    // Its first list-watch, then one resumption after each watch the server ended.
    await until(
      () => maps.connects >= 3 && maps.disconnects >= 2,
      10_000,
      'the server to end two watches, each resumed',
    );
    const name = `late-${uniqueSuffix()}`;
    await core.createNamespacedConfigMap({ namespace, body: configMap(name) });
    await until(() => maps.names('add').includes(name), 5000, 'an add after two watch timeouts');
    expect(lists).toBe(1);
    expect(maps.errors).toEqual([]);
  });

  it('reports nothing after stop', async () => {
    const maps = record(configMapSource(kc));
    const witness = record(configMapSource(kc));
    for (const r of [maps, witness]) r.informer.start();
    await Promise.all([maps.informer.synced, witness.informer.synced]);
    await maps.informer.stop();
    // A stopped informer has no watch to be told by: its watch request has ended.
    await until(() => maps.disconnects === 1, 5000, "the stopped informer's watch to end");
    const name = `unseen-${uniqueSuffix()}`;
    await core.createNamespacedConfigMap({ namespace, body: configMap(name) });
    // The server has sent the add to the watches there are: a running informer has it.
    await until(() => witness.names('add').includes(name), 5000, 'the witness to see the add');
    expect(maps.names('add')).not.toContain(name);
    expect(maps.errors).toEqual([]);
  });

  it('lists and watches Deployments, Jobs and CronJobs through the typed sources', async () => {
    const selector = `${LABELS.managedBy}=${MANAGED_BY}`;
    const deployments = record(deploymentSource(kc, selector));
    const jobs = record(jobSource(kc, selector));
    const cronJobs = record(cronJobSource(kc, selector));
    for (const r of [deployments, jobs, cronJobs]) r.informer.start();
    await Promise.all([deployments, jobs, cronJobs].map((r) => r.informer.synced));

    const name = `w-${uniqueSuffix()}`;
    const labels = { ...managed, app: name };
    const podSpec = {
      containers: [{ name: 'main', image: 'busybox' }],
      restartPolicy: 'Never',
    };
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name, labels },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { ...podSpec, restartPolicy: 'Always' } },
        },
      },
    });
    const batch = kc.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace,
      body: { metadata: { name, labels }, spec: { suspend: true, template: { spec: podSpec } } },
    });
    await batch.createNamespacedCronJob({
      namespace,
      body: {
        metadata: { name, labels },
        spec: {
          schedule: '0 0 1 1 *',
          suspend: true,
          jobTemplate: { spec: { template: { spec: podSpec } } },
        },
      },
    });
    await until(() => deployments.names('add').includes(name), 5000, 'the Deployment');
    await until(() => jobs.names('add').includes(name), 5000, 'the Job');
    await until(() => cronJobs.names('add').includes(name), 5000, 'the CronJob');
    expect(deployments.informer.get(namespace, name)?.kind).toBe('Deployment');
    for (const r of [deployments, jobs, cronJobs]) expect(r.errors).toEqual([]);
  });

  it("maps a child's events to its owning Agent, whose deletion collects the child", async () => {
    const agentsApi = kc.makeApiClient(CustomObjectsApi);
    const agent: Agent = await agentsApi.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: PLURALS.Agent,
      body: agentResource(namespace),
    });
    const agentName = agent.metadata.name as string;
    const owners: string[] = [];
    const deployments = record(deploymentSource(kc, `${LABELS.managedBy}=${MANAGED_BY}`));
    for (const type of ['add', 'delete'] as const) {
      deployments.informer.on(type, (d: V1Deployment) => {
        const key = ownerKeyOf(d, 'Agent', API_GROUP);
        if (key) owners.push(`${type}:${key}`);
      });
    }
    deployments.informer.start();
    await deployments.informer.synced;

    const labels = { ...managed, app: `owned-${uniqueSuffix()}` };
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: {
          name: labels.app,
          labels,
          ownerReferences: [controllerRef(agent)],
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'main', image: 'busybox' }] },
          },
        },
      },
    });
    await until(() => owners.includes(`add:${namespace}/${agentName}`), 5000, 'the owner key');

    // The garbage collector (kube-controller-manager) follows the controller reference.
    await agentsApi.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: PLURALS.Agent,
      name: agentName,
    });
    await until(
      () => owners.includes(`delete:${namespace}/${agentName}`),
      30_000,
      'the garbage collector to delete the Deployment',
    );
  });
});
