/**
 * The operator's Prometheus series: reconciles by kind and outcome, their
 * duration, the work queue's depth by kind and its retries, and the agents
 * the cache holds by status. Labels are kinds, outcomes and statuses only
 * (bounded sets), never an object's name or account.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WorkQueue } from '../../../common/kube/work-queue.js';
import type { ListCached } from './controller.js';

/** Reconcile latency buckets in seconds. */
const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The kind a queue key (`Kind:namespace/name`) is for. */
function kindOfKey(key: string): string {
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(0, colon) : 'unknown';
}

/** What the series read at scrape time. */
export interface ReconcileMetricsSources {
  queue: Pick<WorkQueue, 'readyKeys' | 'delayedCount'>;
  /** The caches, of which the series read the agents. */
  list: ListCached;
}

/** Counts and times reconciles; reads the queue and the cache when scraped. */
export class ReconcileMetrics {
  private readonly reconciles: Counter<'kind' | 'result'>;
  private readonly duration: Histogram<'kind'>;
  private readonly retries: Counter<'kind'>;
  private sources: ReconcileMetricsSources | undefined;
  /** Kinds reconciled so far: their depth is reported, 0 when none is queued. */
  private readonly kinds = new Set<string>();

  constructor(registry: Registry) {
    this.reconciles = new Counter({
      name: 'svc_reconcile_total',
      help: 'Reconciles run, by kind and result (success, requeue, error).',
      labelNames: ['kind', 'result'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'svc_reconcile_duration_seconds',
      help: 'Time one reconcile took, by kind.',
      labelNames: ['kind'],
      buckets: RECONCILE_BUCKETS,
      registers: [registry],
    });
    this.retries = new Counter({
      name: 'svc_workqueue_retries_total',
      help: 'Reconciles run again after a failure (with backoff), by kind.',
      labelNames: ['kind'],
      registers: [registry],
    });
    const sources = () => this.sources;
    const kinds = () => this.kinds;
    new Gauge({
      name: 'svc_workqueue_depth',
      help: 'Keys ready to run, by kind.',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.reset();
        const from = sources();
        if (!from) return;
        const depth = new Map<string, number>([...kinds()].map((kind) => [kind, 0]));
        for (const key of from.queue.readyKeys()) {
          const kind = kindOfKey(key);
          depth.set(kind, (depth.get(kind) ?? 0) + 1);
        }
        for (const [kind, n] of depth) this.set({ kind }, n);
      },
    });
    new Gauge({
      name: 'svc_workqueue_delayed',
      help: 'Keys waiting for a delayed run (a backoff or a requeue).',
      registers: [registry],
      collect() {
        this.set(sources()?.queue.delayedCount ?? 0);
      },
    });
    new Gauge({
      name: 'svc_agents',
      help: 'Agents the operator watches, by status.',
      labelNames: ['status'],
      registers: [registry],
      collect() {
        this.reset();
        const from = sources();
        if (!from) return;
        const counts = new Map<string, number>();
        for (const agent of from.list('agents')) {
          const status = agent.status?.status ?? 'pending';
          counts.set(status, (counts.get(status) ?? 0) + 1);
        }
        for (const [status, n] of counts) this.set({ status }, n);
      },
    });
  }

  /** Where the scrape-time series read from (the manager's queue and cache, once it leads). */
  attach(sources: ReconcileMetricsSources | undefined): void {
    this.sources = sources;
  }

  /** Runs `reconcile` for `key`, counting and timing it; `retry` when the key last failed. */
  async measure<T>(key: string, retry: boolean, reconcile: () => Promise<T>): Promise<T> {
    const kind = kindOfKey(key);
    if (!this.kinds.has(kind)) {
      this.kinds.add(kind);
      // Every kind's series exist from its first reconcile, at 0 until something happens.
      this.retries.inc({ kind }, 0);
      for (const result of ['success', 'requeue', 'error'])
        this.reconciles.inc({ kind, result }, 0);
    }
    if (retry) this.retries.inc({ kind });
    const stop = this.duration.startTimer({ kind });
    try {
      const result = await reconcile();
      const requeued = typeof result === 'object' && result !== null && 'requeueAfter' in result;
      this.reconciles.inc({ kind, result: requeued ? 'requeue' : 'success' });
      return result;
    } catch (err) {
      this.reconciles.inc({ kind, result: 'error' });
      throw err;
    } finally {
      stop();
    }
  }
}
