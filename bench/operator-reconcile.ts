/**
 * How fast the operator catches up with Agents that exist before it starts, and
 * what its memory is: N Agent resources are created (16 at a time) against a real
 * kube-apiserver while no operator runs (the create rate is the API server's, printed
 * on its own line); then the operator starts as its own process and reconciles each
 * (status written with observedGeneration). Prints the catch-up time and agents/s
 * from the operator's start (and from its ready line, without the process's own
 * start-up), the Agent reconciles it ran (errors, retries: its /metrics), its peak
 * RSS (VmHWM) during the catch-up, and its RSS in the steady state after it (every
 * Agent in its cache, nothing left to do).
 *
 *   npx tsx bench/operator-reconcile.ts [agents=1000] [settleSeconds=10]
 *
 * `OPERATOR_CPU_PROF=<dir>` writes the operator's CPU profile (node --cpu-prof) there.
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
import { customResourceSource, ResilientInformer } from '../common/kube/informer.js';
import { createLogger } from '../common/logger.js';
import { peakRssMb, rssMb } from './support/proc.js';

const total = Number(process.argv[2] ?? 1000);
const settleSeconds = Number(process.argv[3] ?? 10);
const cpuProfileDir = process.env.OPERATOR_CPU_PROF;
const seconds = (from: number, to: number) => (to - from) / 1000;

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-operator-'));
const cp = await startControlPlane({ dir, durable: true, controllerManager: false });
const group = new ProcessGroup(join(dir, 'logs'));
let watcher: ResilientInformer<Agent> | undefined;
try {
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  const namespace = 'bench';
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const api = kc.makeApiClient(CustomObjectsApi);
  const coords = { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };

  // 1. The Agents, with no operator running: the API server's create rate alone.
  const createStarted = performance.now();
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

  // A watch (not repeated lists, which would load the API server the operator shares
  // the cores with) counts the Agents whose status has caught up with their generation.
  watcher = new ResilientInformer<Agent>(
    kc,
    customResourceSource(kc, { group: API_GROUP, version: API_VERSION, plural: PLURALS.Agent }),
    { name: 'bench-agents', logger: createLogger('bench', 'warn') },
  );
  const reconciledNames = new Set<string>();
  let firstReconciled: number | undefined;
  let allReconciled: () => void = () => undefined;
  const caughtUp = new Promise<void>((resolve) => (allReconciled = resolve));
  const observe = (agent: Agent) => {
    if (agent.status?.observedGeneration !== agent.metadata.generation) return;
    firstReconciled ??= performance.now();
    reconciledNames.add(agent.metadata.name ?? '');
    if (reconciledNames.size >= total) allReconciled();
  };
  watcher.on('add', observe).on('update', observe);
  watcher.start();
  await watcher.synced;
  if (reconciledNames.size > 0) throw new Error('agents reconciled before the operator started');

  // 2. The operator, started against them.
  const operatorStarted = performance.now();
  const { proc: operator, announced: metricsUrl } = await startReady(group, {
    name: 'operator',
    command: process.execPath,
    args: [
      ...(cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : []),
      // The image's entry point (images/operator/Dockerfile).
      join(repoRoot, 'operator', 'main.mjs'),
    ],
    cwd: repoRoot,
    env: {
      ...process.env,
      KUBECONFIG: cp.kubeconfigPath,
      SVC_INTERNAL_SECRET: generateSecret(),
      SVC_LOG_LEVEL: 'warn',
      SVC_OPERATOR_LEASE_SECONDS: '5',
    },
    readyWhen: { line: readyLine('operator', 'metricsUrl') },
  });
  const operatorReady = performance.now();
  await caughtUp;
  const done = performance.now();
  const peakMb = await peakRssMb(operator.pid!);

  // 3. The steady state: every Agent cached, nothing to do.
  await new Promise((r) => setTimeout(r, settleSeconds * 1000));
  const steadyMb = await rssMb(operator.pid!);
  const series = await (await fetch(metricsUrl)).text();
  const sum = (name: string, filter = '') =>
    series
      .split('\n')
      .filter((line) => line.startsWith(name) && line.includes(filter))
      .reduce((n, line) => n + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);

  const catchUp = seconds(operatorStarted, done);
  const afterReady = seconds(operatorReady, done);
  console.log(`operator reconcile bench: ${total} agents`);
  console.log(
    `  create (API server, no operator): ${total} in ${seconds(createStarted, created).toFixed(2)} s: ${(total / seconds(createStarted, created)).toFixed(0)} creates/s`,
  );
  console.log(
    `  catch-up from operator start: all reconciled in ${catchUp.toFixed(2)} s: ${(total / catchUp).toFixed(0)} agents/s`,
  );
  console.log(
    `  catch-up from its ready line (process start-up of ${seconds(operatorStarted, operatorReady).toFixed(2)} s excluded): ${afterReady.toFixed(2)} s: ${(total / afterReady).toFixed(0)} agents/s`,
  );
  const first = firstReconciled ?? done;
  console.log(
    `  of which: first status ${seconds(operatorReady, first).toFixed(2)} s after the ready line (leadership, caches), then ${seconds(first, done).toFixed(2)} s for the rest: ${((total - 1) / seconds(first, done)).toFixed(0)} agents/s`,
  );
  console.log(
    `  Agent reconciles: ${sum('svc_reconcile_total{kind="Agent"')} (errors ${sum('svc_reconcile_total{kind="Agent"', 'result="error"')}, retries ${sum('svc_workqueue_retries_total{kind="Agent"')})`,
  );
  console.log(`  operator peak RSS ${peakMb.toFixed(0)} MiB`);
  console.log(
    `  operator RSS in the steady state (${settleSeconds} s after the catch-up): ${steadyMb.toFixed(0)} MiB`,
  );
} finally {
  await watcher?.stop();
  await group.stopAll();
  await cp.stop();
  await rm(dir, { recursive: true, force: true });
}
