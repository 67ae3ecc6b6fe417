/**
 * How fast the operator reconciles a burst of agents: N Agent resources are
 * created (16 at a time) against a real kube-apiserver, and the operator, as
 * its own process, reconciles each (status written, observedGeneration set).
 * Prints agents per second from the first create to the last reconciled
 * status, and the operator's peak RSS (VmHWM).
 *
 *   npx tsx bench/operator-reconcile.ts [agents=1000]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS, type Agent } from '../crds/src/index.js';
import { startControlPlane } from '../hack/control-plane/index.js';
import { repoRoot } from '../hack/lib/paths.js';
import { ProcessGroup } from '../common/processes.js';
import { readyLine, startReady } from '../common/component-starter.js';
import { agentResource } from '../test/factories/custom-resources.js';
import { generateSecret } from '../common/secrets.js';
import { peakRssMb } from './support/proc.js';

const total = Number(process.argv[2] ?? 1000);
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-operator-'));
const cp = await startControlPlane({ dir, durable: true, controllerManager: false });
const group = new ProcessGroup(join(dir, 'logs'));
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  const namespace = 'bench';
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const api = kc.makeApiClient(CustomObjectsApi);
  const coords = { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };

  const { proc: operator } = await startReady(group, {
    name: 'operator',
    command: process.execPath,
    args: ['--import', 'tsx', join(repoRoot, 'operator', 'src', 'main.ts')],
    cwd: repoRoot,
    env: {
      ...process.env,
      KUBECONFIG: cp.kubeconfigPath,
      SVC_INTERNAL_SECRET: generateSecret(),
      SVC_LOG_LEVEL: 'warn',
      SVC_OPERATOR_LEASE_SECONDS: '5',
    },
    readyWhen: { line: readyLine('operator', 'ready') },
  });
  await new Promise((r) => setTimeout(r, 1000)); // leadership and caches

  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < total; i = next++) {
        const agent = agentResource(namespace, { name: `bench-${i}` });
        await api.createNamespacedCustomObject({ ...coords, body: agent });
      }
    }),
  );
  const created = performance.now();
  let reconciled = 0;
  while (reconciled < total) {
    const list = (await api.listNamespacedCustomObject(coords)) as { items: Agent[] };
    reconciled = list.items.filter(
      (a) => a.status?.observedGeneration === a.metadata.generation,
    ).length;
    if (reconciled < total) await new Promise((r) => setTimeout(r, 200));
  }
  const done = performance.now();
  const peakMb = await peakRssMb(operator.pid!);
  console.log(`operator reconcile bench: ${total} agents`);
  console.log(`  created in ${((created - started) / 1000).toFixed(2)} s`);
  console.log(
    `  all reconciled ${((done - started) / 1000).toFixed(2)} s after the first create: ${(total / ((done - started) / 1000)).toFixed(0)} agents/s`,
  );
  console.log(`  operator peak RSS ${peakMb.toFixed(0)} MiB`);
} finally {
  await group.stopAll();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
