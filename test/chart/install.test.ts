/**
 * `helm install` of the chart into a real kube-apiserver whose pods kwok runs
 * on fake nodes (../harness/kwok-cluster.ts): the scheduler places the chart's
 * pods, the engine's claim binds a volume, and every workload becomes Ready.
 * Then an upgrade keeps the generated secrets, and an uninstall keeps the CRDs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { eventually } from '../operator/operator-harness.js';
import { startKwokCluster, type KwokCluster } from '../harness/kwok-cluster.js';
import { baseValues, chartDir, withValuesFile } from './helm.js';
import { helmIn, installChart, RELEASE_NAMESPACE } from './kwok-install.js';

const NAMESPACE = RELEASE_NAMESPACE;
let cluster: KwokCluster;

const installValues = { ...baseValues, engine: { persistence: { enabled: true, size: '1Gi' } } };

beforeAll(async () => {
  cluster = await startKwokCluster('chart', { nodes: 3 });
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('helm install on a kwok cluster', () => {
  it('installs, and every workload of the chart becomes Ready on the fake nodes', async () => {
    const started = Date.now();
    const out = await installChart(cluster, installValues);
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
      helmIn(
        cluster,
        'upgrade',
        'svc',
        chartDir,
        '-n',
        NAMESPACE,
        '-f',
        file,
        '--wait',
        '--timeout',
        '3m',
      ),
    );
    expect(await read()).toEqual(before);
    expect(Object.keys(before ?? {}).sort()).toEqual(['engine-api-key', 'internal-secret']);
  });

  it('keeps the CRDs on uninstall, and removes the rest', async () => {
    await helmIn(cluster, 'uninstall', 'svc', '-n', NAMESPACE, '--wait', '--timeout', '2m');
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
