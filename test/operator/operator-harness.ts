/**
 * Runs the real operator (manager, reconcilers, Kubernetes driver) in the
 * test process against the harness's kube-apiserver and controller manager,
 * and plays the kubelet: pods never run here (there is no node), so tests
 * move them along by writing their status, as envtest users do.
 */
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { loadOperatorConfig, type OperatorConfig } from '../../operator/src/config.js';
import { KubernetesDriver } from '../../operator/src/drivers/kubernetes/kubernetes-driver.js';
import { OperatorManager } from '../../operator/src/manager.js';
import { waitFor, type ChangeSource } from '../harness/wait.js';

/** A running operator. */
export interface RunningOperator {
  manager: OperatorManager;
  cfg: OperatorConfig;
  stop(): Promise<void>;
}

/** Starts the operator with test settings, reconciling only the namespaces `namespaces` accepts. */
export async function startOperator(
  kc: KubeConfig,
  namespaces: (namespace: string) => boolean,
  overrides: Partial<OperatorConfig> = {},
  now?: () => Date,
): Promise<RunningOperator> {
  const cfg: OperatorConfig = {
    ...loadOperatorConfig({ SVC_INTERNAL_SECRET: generateSecret() }),
    internalApiUrl: 'http://svc-apiserver.test:8000',
    agentDomain: 'agents.test',
    ...overrides,
  };
  const manager = new OperatorManager({
    kc,
    cfg,
    driver: new KubernetesDriver(kc, cfg),
    log: createLogger('operator', 'silent'),
    concurrency: 4,
    namespaces,
    now,
  });
  await manager.start();
  return { manager, cfg, stop: () => manager.stop() };
}

/**
 * Reads until `accept` holds and returns the accepted value (a 404 counts as not yet), re-reading
 * at once on each event of `wakeOn` (see ../harness/wait.ts).
 */
export async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  timeoutMs = 30_000,
  wakeOn?: ChangeSource,
): Promise<T> {
  let last: T | undefined;
  const accepted = await waitFor(
    what,
    async () => {
      try {
        last = await read();
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
        return undefined;
      }
      return accept(last) ? { value: last } : undefined;
    },
    { timeoutMs, wakeOn, lastSeen: () => last },
  );
  return accepted.value;
}

/** The pods matching `selector` in `namespace`, once at least one exists. */
export async function podsOf(
  kc: KubeConfig,
  namespace: string,
  selector: string,
): Promise<V1Pod[]> {
  const core = kc.makeApiClient(CoreV1Api);
  return eventually(
    async () => (await core.listNamespacedPod({ namespace, labelSelector: selector })).items,
    (pods) => pods.length > 0,
    `pods ${selector}`,
  );
}

async function writePodStatus(kc: KubeConfig, pod: V1Pod, status: V1Pod['status']): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const fresh = await core.readNamespacedPod({
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
  });
  await core.replaceNamespacedPodStatus({
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    body: { ...fresh, status },
  });
}

/** Makes the pods of `selector` finish, as a kubelet would report it. */
export async function finishPods(
  kc: KubeConfig,
  namespace: string,
  selector: string,
  outcome: { succeeded: boolean; message?: string },
): Promise<void> {
  const now = new Date();
  for (const pod of await podsOf(kc, namespace, selector)) {
    const containers = pod.spec?.containers ?? [];
    await writePodStatus(kc, pod, {
      phase: outcome.succeeded ? 'Succeeded' : 'Failed',
      startTime: now,
      conditions: [{ type: 'Ready', status: 'False', reason: 'PodCompleted' }],
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: {
          terminated: {
            exitCode: outcome.succeeded ? 0 : 1,
            reason: outcome.succeeded ? 'Completed' : 'Error',
            message: outcome.message,
            startedAt: now,
            finishedAt: now,
          },
        },
      })),
    });
  }
}

/** Makes the pods of `selector` running and ready, as a kubelet would report it. */
export async function readyPods(
  kc: KubeConfig,
  namespace: string,
  selector: string,
): Promise<void> {
  const now = new Date();
  for (const pod of await podsOf(kc, namespace, selector)) {
    await writePodStatus(kc, pod, {
      phase: 'Running',
      startTime: now,
      podIP: '10.1.0.10',
      conditions: [
        { type: 'Initialized', status: 'True', lastTransitionTime: now },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
        { type: 'Ready', status: 'True', lastTransitionTime: now },
      ],
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
      })),
    });
  }
}

/** Typed clients for assertions. */
export function clients(kc: KubeConfig) {
  return {
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    core: kc.makeApiClient(CoreV1Api),
  };
}
