/**
 * A wake from zero on the cluster path, measured stage by stage: one request through the edge
 * to a service scaled to zero, while watches on its Deployment and pods note when each stage
 * is seen on this machine's clock (the node runs here, so the watch's delay is the same small
 * one for every stage). Used by 04-wake.test.ts and bench/cluster-path.ts.
 */
import {
  AppsV1Api,
  CoreV1Api,
  Watch,
  type KubeConfig,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { LABELS, OBJECT_NAMES } from '../../crds/src/index.js';
import { kubeChanges, waitFor } from '../harness/wait.js';

/** The label selector of a service agent's pods (its build's pods stay, Completed, with the Job). */
export function servicePods(agentId: string): string {
  return `${LABELS.agentId}=${agentId},${LABELS.component}=service`;
}

/** Waits until the service `agentId` is asleep: its Deployment at 0 replicas and no pod left. */
export async function asleep(
  kc: KubeConfig,
  namespace: string,
  agentId: string,
  timeoutMs: number,
): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  await waitFor(
    `agent ${agentId} to be scaled to zero with no pod left`,
    async () => {
      const name = OBJECT_NAMES.workload(agentId);
      const d = await apps.readNamespacedDeployment({ name, namespace });
      const pods = await core.listNamespacedPod({ namespace, labelSelector: servicePods(agentId) });
      return d.spec?.replicas === 0 && pods.items.length === 0;
    },
    { timeoutMs, wakeOn: kubeChanges(kc, `/api/v1/namespaces/${namespace}/pods`) },
  );
}

/** When each stage of one wake was seen, in ms after the request was sent. */
export interface WakeStages {
  /** The edge's activity mark and the operator's reconcile: the Deployment asks for 1 replica. */
  scaled: number;
  /** kube-controller-manager: the ReplicaSet's pod exists. */
  podCreated: number;
  /** kube-scheduler: the pod is bound to the node. */
  scheduled: number;
  /**
   * The kubelet: pod sandbox (pause container, CNI), the image (present on the node: no pull;
   * its layers were unpacked when it was imported) and the runner's container running.
   */
  started: number;
  /** The runner answering its readiness probe: the pod is Ready. */
  ready: number;
  /** The answer through the edge (the operator's status write, the edge seeing it, the proxy). */
  answered: number;
  status: number;
  text: string;
  /** The pod that served it. */
  pod: string;
}

/** Watches `path` until the returned stop, calling `seen` with each object. */
async function watching<T>(
  kc: KubeConfig,
  path: string,
  query: Record<string, string>,
  seen: (o: T) => void,
) {
  const controller = await new Watch(kc).watch(
    path,
    { ...query, allowWatchBookmarks: false },
    (_type: string, obj: T) => seen(obj),
    () => undefined,
  );
  return () => controller.abort();
}

/**
 * Wakes the sleeping agent `agentId` (its workload `deployment` in `namespace`, scaled to
 * zero) with `request`, and returns when each stage happened.
 */
export async function measureWake(
  kc: KubeConfig,
  namespace: string,
  agentId: string,
  deployment: string,
  request: () => Promise<{ status: number; text: string }>,
): Promise<WakeStages> {
  const marks: Partial<
    Record<'scaled' | 'podCreated' | 'scheduled' | 'started' | 'ready', number>
  > = {};
  let pod = '';
  let t0 = 0;
  const mark = (stage: keyof typeof marks) => {
    if (t0 && marks[stage] === undefined) marks[stage] = performance.now() - t0;
  };
  const stops = await Promise.all([
    watching<V1Deployment>(
      kc,
      `/apis/apps/v1/namespaces/${namespace}/deployments`,
      { fieldSelector: `metadata.name=${deployment}` },
      (d) => {
        if ((d.spec?.replicas ?? 0) > 0) mark('scaled');
      },
    ),
    watching<V1Pod>(
      kc,
      `/api/v1/namespaces/${namespace}/pods`,
      { labelSelector: servicePods(agentId) },
      (p) => {
        if (p.metadata?.deletionTimestamp) return;
        pod ||= p.metadata?.name ?? '';
        mark('podCreated');
        if (p.spec?.nodeName) mark('scheduled');
        if (p.status?.containerStatuses?.some((c) => c.state?.running)) mark('started');
        if (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
          mark('ready');
      },
    ),
  ]);
  try {
    // The watches' first answers list what is there now (nothing: the agent sleeps).
    await new Promise((r) => setTimeout(r, 200));
    t0 = performance.now();
    const answer = await request();
    const answered = performance.now() - t0;
    const missing = (['scaled', 'podCreated', 'scheduled', 'started', 'ready'] as const).filter(
      (k) => marks[k] === undefined,
    );
    if (missing.length)
      throw new Error(`the wake's stages were not all seen: ${missing.join(', ')} missing`);
    return { ...(marks as Required<typeof marks>), answered, ...answer, pod };
  } finally {
    for (const stop of stops) stop();
  }
}

/** `p50 …, p90 …` of `values` in ms. */
export function quantiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return `p50 ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`;
}
