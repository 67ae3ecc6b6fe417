/**
 * Agent compute of a cluster's service pods, as usage: the operator watches
 * the pods of agents' services and reports each pod's time from the start
 * the kubelet recorded (`status.startTime`) to its end (its containers'
 * termination, or its deletion), times the memory limit of its container.
 * Time is reported in fixed wall-clock windows with ids of the pod's uid
 * and the window, so a long-lived pod's time is seen as it accrues (each
 * complete window as it closes, the last partial one when the pod ends),
 * and a report repeated after an operator restart is stored once.
 */
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { podSource, ResilientInformer } from '../../../../common/kube/informer.js';
import type { Logger } from '../../../../common/logger.js';
import { LABELS } from '../../../../crds/src/index.js';
import type { UsageReport, UsageReports } from '../../usage-reporter.js';

/** The default window: five minutes. */
export const POD_WINDOW_MS = 5 * 60_000;

/** One window of a pod's running time. */
export interface PodSegment {
  window: number;
  from: number;
  to: number;
}

/**
 * The windows of a pod that ran from `startMs` (to `endMs` when it ended):
 * complete windows only while it runs, every window up to its end once it
 * ended. Windows are `windowMs` long, aligned on the epoch. Pure.
 */
export function podSegments(
  startMs: number,
  endMs: number | null,
  nowMs: number,
  windowMs = POD_WINDOW_MS,
): PodSegment[] {
  const until = endMs ?? nowMs;
  const segments: PodSegment[] = [];
  for (let w = Math.floor(startMs / windowMs); w * windowMs < until; w++) {
    const windowEnd = (w + 1) * windowMs;
    if (endMs === null && windowEnd > nowMs) break;
    segments.push({
      window: w,
      from: Math.max(startMs, w * windowMs),
      to: Math.min(until, windowEnd),
    });
  }
  return segments;
}

/** Memory of a Kubernetes quantity (`256Mi`, `1Gi`, `268435456`) in MB; 0 when unreadable. */
export function memoryMbOf(quantity: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity ?? '');
  if (!match) return 0;
  const factor: Record<string, number> = {
    '': 1 / 2 ** 20,
    Ki: 1 / 1024,
    Mi: 1,
    Gi: 1024,
    Ti: 1024 ** 2,
    k: 1000 / 2 ** 20,
    M: 1e6 / 2 ** 20,
    G: 1e9 / 2 ** 20,
    T: 1e12 / 2 ** 20,
  };
  return Number(match[1]) * factor[match[2] ?? '']!;
}

/** When the pod ended: its containers' last termination, else null while it runs. */
export function podEnd(pod: V1Pod): number | null {
  const statuses = pod.status?.containerStatuses ?? [];
  const ends = statuses.map((s) => s.state?.terminated?.finishedAt);
  if (statuses.length === 0 || ends.some((e) => !e)) return null;
  return Math.max(...ends.map((e) => new Date(e!).getTime()));
}

/** Watches service pods and reports their time. */
export class PodUsageMeter {
  private readonly informer: ResilientInformer<V1Pod>;
  /** The last window reported per pod uid (forgotten when the pod ends). */
  private readonly reported = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    kc: KubeConfig,
    private readonly reports: UsageReports,
    private readonly log: Logger,
    private readonly windowMs = POD_WINDOW_MS,
  ) {
    this.informer = new ResilientInformer(
      kc,
      // Agents' pods carry the agent's labels, not the managed-by label of the objects that own them.
      podSource(kc, `${LABELS.component}=service,${LABELS.agentId}`),
      { name: 'pods (usage)' },
    );
    this.informer.on('add', (pod) => this.observe(pod, false));
    this.informer.on('update', (pod) => this.observe(pod, false));
    this.informer.on('delete', (pod) => this.observe(pod, true));
  }

  /** Starts watching, and reports complete windows of running pods as they close. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
    this.timer = setInterval(
      () => {
        for (const pod of this.informer.list()) this.observe(pod, false);
      },
      Math.min(this.windowMs, 60_000),
    );
    this.timer.unref();
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.informer.stop();
  }

  private observe(pod: V1Pod, deleted: boolean): void {
    const uid = pod.metadata?.uid;
    const started = pod.status?.startTime;
    if (!uid || !started) return;
    const end = podEnd(pod) ?? (deleted ? Date.now() : null);
    const after = this.reported.get(uid) ?? -Infinity;
    const segments = podSegments(new Date(started).getTime(), end, Date.now(), this.windowMs);
    for (const segment of segments.filter((s) => s.window > after)) {
      const report = this.report(pod, segment);
      if (report) this.reports.report(report);
    }
    if (end !== null) this.reported.delete(uid);
    else if (segments.length > 0) this.reported.set(uid, segments[segments.length - 1]!.window);
  }

  private report(pod: V1Pod, segment: PodSegment): UsageReport | null {
    const namespace = pod.metadata?.namespace ?? '';
    const tenant = /^svc-(live|test)-(.+)$/.exec(namespace);
    const labels = pod.metadata?.labels ?? {};
    if (!tenant) {
      this.log.debug('service pod outside a tenant namespace not metered', { namespace });
      return null;
    }
    const container = pod.spec?.containers?.[0];
    return {
      id: `compute:pod:${pod.metadata?.uid}:${segment.window}`,
      account_id: tenant[2]!,
      environment: tenant[1] as 'live' | 'test',
      agent_id: labels[LABELS.agentId] ?? null,
      deployment_id: labels[LABELS.deploymentId] ?? null,
      kind: 'compute',
      started_at: new Date(segment.from).toISOString(),
      ended_at: new Date(segment.to).toISOString(),
      memory_mb: Math.round(memoryMbOf(container?.resources?.limits?.memory)),
    };
  }
}
