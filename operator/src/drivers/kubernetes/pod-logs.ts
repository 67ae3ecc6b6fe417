/**
 * What agents print on a cluster, into the platform's logs: the leading operator follows the
 * log of every running container of agents' service and run pods through the Kubernetes API
 * (with the kubelet's timestamps) and ships each line to the API server's log ingestion, as
 * the local driver does for its processes. A follow that ends while its container still runs
 * (a broken connection, a new leader) resumes from the last timestamp shipped, so a line is
 * shipped once; a restarted container (a new container id) is followed from its start.
 * Kubernetes keeps one log per container, stdout and stderr mixed: lines are shipped as
 * `stdout`.
 */
import { Writable } from 'node:stream';
import { Log, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { podSource, ResilientInformer } from '../../../../common/kube/informer.js';
import type { Logger } from '../../../../common/logger.js';
import { LABELS, parseTenantNamespace } from '../../../../crds/src/index.js';
import type { LogShipper } from '../../logs/log-shipper.js';

/** How long a follow that ended waits before it is started again. */
const RESUME_MS = 1_000;

/** A line of `kubectl logs --timestamps`: the kubelet's RFC 3339 time, a space, the text. */
export function parseTimestamped(line: string): { timestamp: string; message: string } | null {
  const space = line.indexOf(' ');
  if (space <= 0) return null;
  const timestamp = line.slice(0, space);
  if (Number.isNaN(Date.parse(timestamp))) return null;
  return { timestamp, message: line.slice(space + 1) };
}

/** A kubelet time with its fraction padded to nanoseconds (RFC3339Nano trims trailing zeros). */
function padded(time: string): string {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(time);
  return match ? `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z` : time;
}

/**
 * Whether the kubelet time `a` is after `b`, to the nanosecond (UTC times, as the kubelet
 * writes them; others compared as Date.parse does, to the millisecond). Two lines of the same
 * nanosecond are one line to a resumed follow.
 */
export function isAfter(a: string, b: string | undefined): boolean {
  if (b === undefined) return true;
  const [pa, pb] = [padded(a), padded(b)];
  if (pa.length === pb.length && pa.endsWith('Z') && pb.endsWith('Z')) return pa > pb;
  return Date.parse(a) > Date.parse(b);
}

/** One container's follow. */
interface Follow {
  containerId: string;
  abort?: AbortController;
  /** The time of the last line shipped. */
  last?: string;
  /** Set once the pod or container is gone: the follow is not resumed. */
  done: boolean;
}

/** Follows the logs of agents' pods and ships them. */
export class PodLogFollower {
  private readonly informer: ResilientInformer<V1Pod>;
  private readonly follows = new Map<string, Follow>();
  private readonly logs: Log;
  private stopped = false;

  constructor(
    kc: KubeConfig,
    private readonly shipper: LogShipper,
    private readonly log: Logger,
  ) {
    this.logs = new Log(kc);
    this.informer = new ResilientInformer(
      kc,
      podSource(kc, `${LABELS.component} in (service,run),${LABELS.agentId}`),
      { name: 'pods (logs)' },
    );
    this.informer.on('add', (pod) => this.observe(pod));
    this.informer.on('update', (pod) => this.observe(pod));
    this.informer.on('delete', (pod) => this.forget(pod));
  }

  /** Starts following the running containers, now and as they come. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.synced;
  }

  /** Stops every follow (what was read is still shipped by the shipper). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const follow of this.follows.values()) {
      follow.done = true;
      follow.abort?.abort();
    }
    this.follows.clear();
    await this.informer.stop();
  }

  private key(pod: V1Pod, container: string): string {
    return `${pod.metadata?.namespace}/${pod.metadata?.name}/${container}`;
  }

  private observe(pod: V1Pod): void {
    if (this.stopped) return;
    for (const status of pod.status?.containerStatuses ?? []) {
      const key = this.key(pod, status.name);
      const current = this.follows.get(key);
      const id = status.containerID ?? '';
      if (status.state?.running && id && current?.containerId !== id) {
        if (current) {
          current.done = true;
          current.abort?.abort();
        }
        const follow: Follow = { containerId: id, done: false };
        this.follows.set(key, follow);
        void this.follow(pod, status.name, follow);
      }
    }
  }

  private forget(pod: V1Pod): void {
    for (const status of pod.status?.containerStatuses ?? []) {
      const key = this.key(pod, status.name);
      const follow = this.follows.get(key);
      if (!follow) continue;
      // What the container printed last is still in its log: the open follow reads it to the end.
      follow.done = true;
      this.follows.delete(key);
    }
  }

  private async follow(pod: V1Pod, container: string, follow: Follow): Promise<void> {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const tenant = parseTenantNamespace(namespace);
    const labels = pod.metadata?.labels ?? {};
    const agentId = labels[LABELS.agentId];
    if (!tenant || !agentId) return;
    const owner = { agentId, accountId: tenant.accountId, environment: tenant.environment };
    const deploymentId = labels[LABELS.deploymentId] ?? null;
    while (!follow.done && !this.stopped) {
      let pending = '';
      const sink = new Writable({
        write: (chunk: Buffer, _encoding, callback) => {
          pending += chunk.toString('utf8');
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) this.ship(line, owner, deploymentId, follow);
          callback();
        },
      });
      const ended = new Promise<void>((resolve) => {
        sink.on('finish', resolve);
        sink.on('close', resolve);
      });
      try {
        follow.abort = await this.logs.log(namespace, name, container, sink, {
          follow: true,
          timestamps: true,
          ...(follow.last ? { sinceTime: follow.last } : {}),
        });
        await ended;
      } catch (err) {
        if (!follow.done) this.log.debug('pod log follow ended', { pod: name, container, err });
      }
      if (pending) this.ship(pending, owner, deploymentId, follow);
      if (follow.done || this.stopped) return;
      await new Promise((resolve) => setTimeout(resolve, RESUME_MS).unref());
      // The pod may have ended meanwhile: the next look at it (an update) says so.
      const current = this.informer.get(namespace, name);
      const status = current?.status?.containerStatuses?.find((s) => s.name === container);
      if (!status?.state?.running || status.containerID !== follow.containerId) return;
    }
  }

  private ship(
    line: string,
    owner: { agentId: string; accountId: string; environment: string },
    deploymentId: string | null,
    follow: Follow,
  ): void {
    const parsed = parseTimestamped(line);
    if (!parsed) return;
    // A resumed follow starts at `last` (sinceTime is inclusive, to the second): skip what was shipped.
    if (!isAfter(parsed.timestamp, follow.last)) return;
    follow.last = parsed.timestamp;
    this.shipper.push(owner, {
      deployment_id: deploymentId,
      timestamp: new Date(parsed.timestamp).toISOString(),
      stream: 'stdout',
      message: parsed.message,
    });
  }
}
