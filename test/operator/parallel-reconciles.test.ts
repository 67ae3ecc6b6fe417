/**
 * The operator's queues and caches against the real kube-apiserver: many Agents
 * reconciled by parallel workers, each Agent by one worker at a time and last for its
 * latest generation, read from caches that hold no managedFields.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { API_GROUP, API_VERSION, PLURALS, type Agent } from '../../crds/src/index.js';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { loadOperatorConfig } from '../../operator/src/config.js';
import { KubernetesDriver } from '../../operator/src/drivers/kubernetes/kubernetes-driver.js';
import { OperatorManager } from '../../operator/src/manager.js';
import { ReconcileMetrics } from '../../operator/src/control-loop/reconcile-metrics.js';
import { agentResource } from '../factories/custom-resources.js';
import { createNamespace, kubeConfig } from '../harness/env.js';
import { eventually } from './operator-harness.js';

const AGENTS = 40;
const WRITES_PER_AGENT = 3;

/** Reconcile metrics that also record, per key, whether two runs ever overlapped. */
class OverlapRecorder extends ReconcileMetrics {
  readonly running = new Set<string>();
  readonly overlapping: string[] = [];
  peakAgents = 0;

  override async measure<T>(key: string, retry: boolean, reconcile: () => Promise<T>): Promise<T> {
    if (this.running.has(key)) this.overlapping.push(key);
    this.running.add(key);
    const agents = [...this.running].filter((k) => k.startsWith('Agent:')).length;
    this.peakAgents = Math.max(this.peakAgents, agents);
    try {
      return await super.measure(key, retry, reconcile);
    } finally {
      this.running.delete(key);
    }
  }
}

let kc: KubeConfig;
let namespace: string;
let manager: OperatorManager;
const recorder = new OverlapRecorder(new Registry());
const api = () => kc.makeApiClient(CustomObjectsApi);
const coords = () => ({ group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent });

const listAgents = async () =>
  ((await api().listNamespacedCustomObject(coords())) as { items: Agent[] }).items;

beforeAll(async () => {
  kc = kubeConfig();
  namespace = await createNamespace(kc, 'parallel');
  const cfg = {
    ...loadOperatorConfig({ SVC_INTERNAL_SECRET: generateSecret() }),
    internalApiUrl: 'http://svc-apiserver.test:8000',
    agentDomain: 'agents.test',
  };
  manager = new OperatorManager({
    kc,
    cfg,
    driver: new KubernetesDriver(kc, cfg),
    log: createLogger('operator', 'silent'),
    namespaces: (ns) => ns === namespace,
    concurrency: { default: 2, Agent: 8 },
    metrics: recorder,
  });
  await manager.start();
});

afterAll(async () => {
  await manager.stop();
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
});

describe('parallel reconciles', () => {
  it('reconciles many Agents side by side, one run per Agent at a time, each last at its latest generation', async () => {
    const names = await Promise.all(
      Array.from({ length: AGENTS }, async () => {
        const agent = agentResource(namespace);
        await api().createNamespacedCustomObject({ ...coords(), body: agent });
        return agent.metadata.name as string;
      }),
    );
    // Spec changes in quick succession, while the first reconciles run.
    for (let write = 1; write <= WRITES_PER_AGENT; write++) {
      await Promise.all(
        names.map((name) =>
          api().patchNamespacedCustomObject(
            { ...coords(), name, body: { spec: { memoryMb: 256 + write * 128 } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          ),
        ),
      );
    }

    const agents = await eventually(
      listAgents,
      (items) =>
        items.length === AGENTS &&
        items.every(
          (a) =>
            a.metadata.generation === 1 + WRITES_PER_AGENT &&
            a.status?.observedGeneration === a.metadata.generation,
        ),
      'every agent reconciled at its last generation',
      60_000,
    );

    expect(agents.map((a) => a.status?.status)).toEqual(agents.map(() => 'pending'));
    expect(recorder.overlapping).toEqual([]);
    expect(recorder.peakAgents).toBeGreaterThan(1);
    expect(recorder.peakAgents).toBeLessThanOrEqual(8);
  });

  it('caches the Agents without managedFields, which the API keeps', async () => {
    const [fromApi] = await listAgents();
    const name = fromApi?.metadata.name as string;
    expect(
      (fromApi?.metadata as { managedFields?: unknown[] }).managedFields?.length,
    ).toBeGreaterThan(0);
    const cached = manager.cache.informer('agents').get(namespace, name);
    expect(cached?.spec.memoryMb).toBe(256 + WRITES_PER_AGENT * 128);
    expect(cached?.metadata).not.toHaveProperty('managedFields');
    for (const agent of manager.cache.informer('agents').listIn(namespace))
      expect(agent.metadata).not.toHaveProperty('managedFields');
  });
});
