/**
 * The chart installed into a kwok cluster (../harness/kwok-cluster.ts), and
 * what its ServiceAccounts are allowed: kubeconfigs holding TokenRequest tokens
 * of the chart's accounts, so a process using one has the chart's RBAC and
 * nothing more.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { stringify } from 'yaml';
import type { KwokCluster } from '../harness/kwok-cluster.js';
import { chartDir, helm, withValuesFile } from './helm.js';

/** Where the tests install the release `svc`. */
export const RELEASE_NAMESPACE = 'svc-system';

/** helm against the kwok cluster; throws with helm's output on failure. */
export async function helmIn(cluster: KwokCluster, ...args: string[]): Promise<string> {
  const result = await helm([...args, '--kubeconfig', cluster.kubeconfigPath]);
  if (!result.ok) throw new Error(`helm ${args[0]} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/**
 * The CRDs the cluster was started with become the release's, the way an admin
 * hands existing CRDs to Helm, so an install covers crds.enabled=true.
 */
async function adoptCrds(cluster: KwokCluster): Promise<void> {
  const api = cluster.kc.makeApiClient(ApiextensionsV1Api);
  for (const name of ['agents.svc.dev', 'agentdeployments.svc.dev', 'workspaces.svc.dev']) {
    const crd: V1CustomResourceDefinition = await api.readCustomResourceDefinition({ name });
    crd.metadata!.labels = { ...crd.metadata!.labels, 'app.kubernetes.io/managed-by': 'Helm' };
    crd.metadata!.annotations = {
      ...crd.metadata!.annotations,
      'meta.helm.sh/release-name': 'svc',
      'meta.helm.sh/release-namespace': RELEASE_NAMESPACE,
    };
    await api.replaceCustomResourceDefinition({ name, body: crd });
  }
}

/**
 * Makes the release's namespace and a volume the engine's claim can bind (no
 * storage provisioner here, as an admin would), then `helm install svc` with
 * `values`, waiting until every workload is Ready; returns what helm printed.
 */
export async function installChart(cluster: KwokCluster, values: object): Promise<string> {
  const core = cluster.kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: RELEASE_NAMESPACE } } });
  await core.createPersistentVolume({
    body: {
      metadata: { name: 'engine-data' },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteOnce'],
        hostPath: { path: '/var/lib/svc-engine' },
        persistentVolumeReclaimPolicy: 'Retain',
      },
    },
  });
  await adoptCrds(cluster);
  return withValuesFile(values, (file) =>
    helmIn(cluster, 'install', 'svc', chartDir, '-n', RELEASE_NAMESPACE, '-f', file, '--wait'),
  );
}

/**
 * A KubeConfig (and its file in `dir`) that authenticates as the chart's
 * ServiceAccount `name`, with a token from the TokenRequest API.
 */
export async function serviceAccountKubeConfig(
  cluster: KwokCluster,
  name: string,
  dir: string,
): Promise<{ kc: KubeConfig; path: string }> {
  const token = await cluster.kc.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace: RELEASE_NAMESPACE,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const server = cluster.kc.getCurrentCluster()!;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kwok',
        cluster: { server: server.server, 'certificate-authority-data': server.caData },
      },
    ],
    users: [{ name, user: { token: token.status?.token } }],
    contexts: [{ name, context: { cluster: 'kwok', user: name } }],
    'current-context': name,
  };
  const path = join(dir, `${name}.kubeconfig`);
  await writeFile(path, stringify(config), { mode: 0o600 });
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return { kc, path };
}
