/**
 * `helm install` of the chart into a real kube-apiserver whose pods kwok runs
 * on fake nodes (../harness/kwok-cluster.ts): the scheduler places the chart's
 * pods, the engine's claim binds a volume, and every workload becomes Ready.
 * Then an upgrade keeps the generated secrets, and an uninstall keeps the CRDs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { eventually } from '../operator/operator-harness.js';
import { startKwokCluster, type KwokCluster } from '../harness/kwok-cluster.js';
import { baseValues, chartDir, helm, withValuesFile } from './helm.js';

const NAMESPACE = 'svc-system';
let cluster: KwokCluster;

/** helm against the kwok cluster; throws with helm's output on failure. */
async function helmIn(...args: string[]): Promise<string> {
  const result = await helm([...args, '--kubeconfig', cluster.kubeconfigPath]);
  if (!result.ok) throw new Error(`helm ${args[0]} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

const installValues = { ...baseValues, engine: { persistence: { enabled: true, size: '1Gi' } } };

/**
 * The CRDs the region was started with become the release's, the way an admin
 * hands existing CRDs to Helm, so the install covers crds.enabled=true.
 */
async function adoptCrds(): Promise<void> {
  const api = cluster.kc.makeApiClient(ApiextensionsV1Api);
  for (const name of ['agents.svc.dev', 'agentdeployments.svc.dev', 'workspaces.svc.dev']) {
    const crd: V1CustomResourceDefinition = await api.readCustomResourceDefinition({ name });
    crd.metadata!.labels = { ...crd.metadata!.labels, 'app.kubernetes.io/managed-by': 'Helm' };
    crd.metadata!.annotations = {
      ...crd.metadata!.annotations,
      'meta.helm.sh/release-name': 'svc',
      'meta.helm.sh/release-namespace': NAMESPACE,
    };
    await api.replaceCustomResourceDefinition({ name, body: crd });
  }
}

beforeAll(async () => {
  cluster = await startKwokCluster('chart', { nodes: 3 });
  const core = cluster.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // No storage provisioner here: a volume the engine's claim can bind, as an admin would make.
  await core.createPersistentVolume({
    body: {
      metadata: { name: 'engine-data' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/var/lib/svc-engine' },
        persistentVolumeReclaimPolicy: 'Retain',
      },
    },
  });
  await adoptCrds();
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('helm install on a kwok cluster', () => {
  it('installs, and every workload of the chart becomes Ready on the fake nodes', async () => {
    const started = Date.now();
    const out = await withValuesFile(installValues, (file) =>
      helmIn('install', 'svc', chartDir, '-n', NAMESPACE, '-f', file, '--wait', '--timeout', '3m'),
    );
    expect(out).toContain('STATUS: deployed');
    expect(out).toContain('create-account'); // NOTES.txt says how to get the first key
    process.stdout.write(`helm install --wait: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    const apps = cluster.kc.makeApiClient(AppsV1Api);
    for (const name of ['svc-apiserver', 'svc-operator']) {
      const deployment = await apps.readNamespacedDeployment({ namespace: NAMESPACE, name });
      expect([name, deployment.status?.readyReplicas]).toEqual([name, 2]);
    }
    const engine = await apps.readNamespacedStatefulSet({
      namespace: NAMESPACE,
      name: 'svc-engine',
    });
    expect(engine.status?.readyReplicas).toBe(1);

    const core = cluster.kc.makeApiClient(CoreV1Api);
    const pods = (await core.listNamespacedPod({ namespace: NAMESPACE })).items;
    expect(pods).toHaveLength(5);
    for (const pod of pods) {
      expect(cluster.nodes).toContain(pod.spec?.nodeName);
      expect(pod.status?.phase).toBe('Running');
    }
    const claim = await core.readNamespacedPersistentVolumeClaim({
      namespace: NAMESPACE,
      name: 'data-svc-engine-0',
    });
    expect(claim.status?.phase).toBe('Bound');
  });

  it('keeps the generated internal secret and engine key on upgrade', async () => {
    const core = cluster.kc.makeApiClient(CoreV1Api);
    const read = async () =>
      (await core.readNamespacedSecret({ namespace: NAMESPACE, name: 'svc-secrets' })).data;
    const before = await read();
    await withValuesFile({ ...installValues, operator: { logLevel: 'debug' } }, (file) =>
      helmIn('upgrade', 'svc', chartDir, '-n', NAMESPACE, '-f', file, '--wait', '--timeout', '3m'),
    );
    expect(await read()).toEqual(before);
    expect(Object.keys(before ?? {}).sort()).toEqual(['engine-api-key', 'internal-secret']);
  });

  it('keeps the CRDs on uninstall, and removes the rest', async () => {
    await helmIn('uninstall', 'svc', '-n', NAMESPACE, '--wait', '--timeout', '2m');
    const crds = await cluster.kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(crds.items.map((c) => c.metadata?.name)).toEqual(
      expect.arrayContaining(['agents.svc.dev', 'agentdeployments.svc.dev', 'workspaces.svc.dev']),
    );
    const apps = cluster.kc.makeApiClient(AppsV1Api);
    await eventually(
      () => apps.listNamespacedDeployment({ namespace: NAMESPACE }),
      (list) => list.items.length === 0,
      'the Deployments to go',
    );
  });
});
