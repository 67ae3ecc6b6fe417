/**
 * Service agents through the Kubernetes driver on kwok's fake nodes: the test
 * harness's components, a kwok cluster of `nodes` nodes (../test/harness/kwok-cluster.ts:
 * real kube-apiserver, controller manager and scheduler), the control plane in
 * this process and the operator as its own process. Each agent is created and
 * deployed through the REST API (16 at a time); its build Job's pod, then its
 * service pod, are scheduled and run by kwok. Prints agents per second from the
 * first create until every agent is `running`, and the operator's peak RSS
 * (VmHWM). Nothing runs inside the pods (see test/chart/kubernetes-path.test.ts).
 *
 *   npx tsx bench/kwok-agents.ts [agents=1000] [nodes=50] [buildConcurrency=50]
 */
import { CustomObjectsApi } from '@kubernetes/client-node';
import { join } from 'node:path';
import { API_GROUP, API_VERSION, PLURALS, type Agent } from '../crds/src/index.js';
import { readyLine, startReady } from '../common/component-starter.js';
import { ProcessGroup } from '../common/processes.js';
import { repoRoot } from '../hack/lib/paths.js';
import { PYTHON_SERVICE } from '../test/factories/archives.js';
import { bootComponents, stopComponents } from '../test/harness/boot.js';
import { harness } from '../test/harness/env.js';
import { startKwokCluster } from '../test/harness/kwok-cluster.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
} from '../test/apiserver/control-plane-server.js';
import { deployFiles } from '../test/apiserver/deploy/deploy-helpers.js';
import { peakRssMb } from './support/proc.js';

const total = Number(process.argv[2] ?? 1000);
const nodes = Number(process.argv[3] ?? 50);
const buildConcurrency = process.argv[4] ?? '50';

await bootComponents();
const group = new ProcessGroup(join(harness().dir, 'bench-logs'));
const cluster = await startKwokCluster('bench', { nodes, podsPerNode: 110 });
const server = await startControlPlaneServer({ kc: cluster.kc, regions: ['local'] });
try {
  const owner = await createCaller(server, { tier: 'enterprise' });
  const { proc: operator } = await startReady(group, {
    name: 'operator',
    command: process.execPath,
    args: ['--import', 'tsx', join(repoRoot, 'operator', 'src', 'main.ts')],
    cwd: repoRoot,
    env: {
      ...process.env,
      KUBECONFIG: cluster.kubeconfigPath,
      SVC_INTERNAL_SECRET: server.internalSecret,
      SVC_INTERNAL_API_URL: server.base,
      SVC_BUILD_CONCURRENCY: buildConcurrency,
      SVC_OPERATOR_LEASE_SECONDS: '5',
      SVC_METRICS_PORT: '-1',
      SVC_LOG_LEVEL: 'warn',
    },
    readyWhen: { line: readyLine('operator', 'identity') },
  });
  await new Promise((r) => setTimeout(r, 1000)); // leadership and caches

  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < total; i = next++) {
        const name = `bench-${i}`;
        const created = await call(server, 'POST', '/api/v1/agents', {
          key: owner.key,
          // The free plan's longest idle timeout, so no agent scales to zero during the run.
          body: { name, idle_timeout_minutes: 15 },
        });
        if (created.status !== 201) throw new Error(`create ${name}: ${created.text}`);
        const deployed = await deployFiles(server, owner.key, name, { 'main.py': PYTHON_SERVICE });
        if (deployed.status !== 202)
          throw new Error(`deploy ${name}: ${JSON.stringify(deployed.body)}`);
      }
    }),
  );
  const submitted = performance.now();

  const api = cluster.kc.makeApiClient(CustomObjectsApi);
  const coords = {
    group: API_GROUP,
    version: API_VERSION,
    namespace: owner.namespace,
    plural: PLURALS.Agent,
  };
  let running = 0;
  let lastReport = 0;
  const deadline = Date.now() + 60 * 60_000;
  while (running < total) {
    const list = (await api.listNamespacedCustomObject(coords)) as { items: Agent[] };
    running = list.items.filter((a) => a.status?.status === 'running').length;
    if (Date.now() > deadline) throw new Error(`only ${running} of ${total} running after an hour`);
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      console.log(
        `  ${running}/${total} running after ${((lastReport - started) / 1000).toFixed(0)} s`,
      );
    }
    if (running < total) await new Promise((r) => setTimeout(r, 500));
  }
  const done = performance.now();
  const seconds = (done - started) / 1000;
  console.log(`kwok agents bench: ${total} service agents on ${nodes} kwok nodes`);
  console.log(
    `  created and deployed through REST in ${((submitted - started) / 1000).toFixed(1)} s`,
  );
  console.log(
    `  all running ${seconds.toFixed(1)} s after the first create: ${(total / seconds).toFixed(2)} agents/s`,
  );
  console.log(`  operator peak RSS ${(await peakRssMb(operator.pid)).toFixed(0)} MiB`);
} finally {
  await group.stopAll();
  await server.close();
  await cluster.stop();
  await stopComponents();
}
