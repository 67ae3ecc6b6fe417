/**
 * Runs the controllers: wires each one's declared watches to the cluster cache and
 * feeds a work queue per kind keyed by `Kind:namespace/name`, which serialises work per
 * object and routes each key to the controller of its kind, with workers per kind
 * (the configuration's `workers`: Agents many, as a reconcile mostly waits on its status
 * write and a burst of them is the common case; deployments fewer, paced by the build
 * slots anyway; Workspaces few). The reconcilers read the custom resources from the
 * cache (cached-resources.ts), so a reconcile makes no read request of its own. The
 * manager knows no kinds; the controllers say what they reconcile and what enqueues them.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import type { ResilientInformer } from '../../common/kube/informer.js';
import type { ReconcileResult } from '../../common/kube/work-queue.js';
import type { Logger } from '../../common/logger.js';
import type { OperatorConfig } from './config.js';
import { ClusterCache } from './control-loop/cluster-cache.js';
import { CachedResources } from './control-loop/cached-resources.js';
import { KindQueues, type KindConcurrency } from './control-loop/kind-queues.js';
import {
  parseQueueKey,
  queueKey,
  type Controller,
  type ListCached,
  type ObjectRef,
  type Watch,
} from './control-loop/controller.js';
import { operatorControllers, type OperatorControllers } from './controllers/index.js';
import { UsageReporter } from './usage-reporter.js';
import type { ReconcileMetrics } from './control-loop/reconcile-metrics.js';
import type { ResourceKind } from '../../crds/src/index.js';
import type { WorkloadDriver } from './drivers/driver.js';
import { KubeEventRecorder, type EventSink } from './events/event-recorder.js';

/** Options of {@link OperatorManager}. */
export interface ManagerOptions {
  kc: KubeConfig;
  cfg: OperatorConfig;
  driver: WorkloadDriver;
  log: Logger;
  /** Workers per kind (default: the configuration's `workers`); a number gives each kind that many. */
  concurrency?: KindConcurrency;
  now?: () => Date;
  /** Only namespaces this accepts are reconciled (tests run operators side by side). Default: all. */
  namespaces?: (namespace: string) => boolean;
  /** Counts and times reconciles, and reads the queue and cache when scraped. */
  metrics?: ReconcileMetrics;
  /** Who records the Events (its reportingInstance): the leader's identity. Default: the host name. */
  identity?: string;
}

/** The controllers, the cache they watch and their queues. */
export class OperatorManager {
  readonly queue: KindQueues;
  /** The informer caches the controllers read and watch (read by tests and metrics). */
  readonly cache: ClusterCache;
  private readonly controllers = new Map<ResourceKind, Controller>();
  /** What the driver is told still exists, from the caches. */
  private readonly liveObjects: OperatorControllers['liveObjects'];
  private readonly accept: (namespace: string) => boolean;
  /** Reports runs' and builds' times to the API server; flushed by {@link stop}. */
  private readonly usage: UsageReporter;
  /** The driver's own metering of the machines it runs (a cluster's pods), once started. */
  private machineMeter: { stop(): Promise<void> } | undefined;
  private logShipping: { stop(): Promise<void> } | undefined;
  /** The Events the controllers record; flushed by {@link stop}. */
  private readonly events: EventSink;

  constructor(private readonly opts: ManagerOptions) {
    const { kc, log } = opts;
    this.accept = opts.namespaces ?? (() => true);
    this.cache = new ClusterCache(kc, log, this.accept);
    const enqueue = (kind: ResourceKind, ref: ObjectRef) => this.enqueue(kind, ref);
    this.usage = new UsageReporter(opts.cfg.internalApiUrl, opts.cfg.internalSecret, log);
    const resources = new CustomResourceClient(kc);
    this.events = new KubeEventRecorder(kc, log, {
      reportingInstance: opts.identity,
      now: opts.now,
    });
    const { controllers, driverNotifier, liveObjects } = operatorControllers({
      resources,
      cached: new CachedResources(resources, this.cache.resources()),
      driver: opts.driver,
      view: this.cache.view(),
      cfg: opts.cfg,
      enqueue,
      log,
      events: this.events,
      now: opts.now,
      usage: this.usage,
    });
    this.queue = new KindQueues(
      controllers.map((controller) => controller.kind),
      { logger: log },
    );
    for (const controller of controllers) {
      this.controllers.set(controller.kind, controller);
      for (const watch of controller.watches) this.wire(controller.kind, watch);
    }
    opts.driver.notify?.(driverNotifier);
    this.liveObjects = liveObjects;
  }

  private enqueue(kind: ResourceKind, ref: ObjectRef): void {
    if (this.accept(ref.namespace)) this.queue.add(queueKey(kind, ref));
  }

  /** Enqueues what `watch` maps each event of its source to, for the controller of `kind`. */
  private wire(kind: ResourceKind, watch: Watch): void {
    const informer = this.cache.informer(watch.source) as ResilientInformer<KubernetesObject>;
    const map = watch.map as (obj: KubernetesObject) => ObjectRef[];
    const onEvent = (obj: KubernetesObject) => {
      for (const ref of map(obj)) this.enqueue(kind, ref);
    };
    for (const event of ['add', 'update', 'delete'] as const) informer.on(event, onEvent);
  }

  /** Starts the informers and the workers; resolves once the caches are filled. */
  async start(): Promise<void> {
    await this.cache.start();
    this.machineMeter = await this.opts.driver.meterUsage?.(this.usage, this.opts.log);
    this.logShipping = await this.opts.driver.shipLogs?.(this.opts.log);
    const list: ListCached = (source) => this.cache.list(source);
    // Before any reconcile: what was kept for objects deleted while no operator ran.
    await this.opts.driver
      .collectOrphans(this.liveObjects(list))
      .catch((err: unknown) =>
        this.opts.log.warn('could not remove the state of deleted objects', { err }),
      );
    const { metrics } = this.opts;
    metrics?.attach({ queue: this.queue, list });
    const run = metrics
      ? (key: string) => metrics.measure(key, this.queue.retries(key) > 0, () => this.handle(key))
      : (key: string) => this.handle(key);
    this.queue.start(run, this.opts.concurrency ?? { default: 4, ...this.opts.cfg.workers });
  }

  private async handle(key: string): Promise<ReconcileResult> {
    const { kind, ref } = parseQueueKey(key);
    const controller = this.controllers.get(kind);
    if (!controller) throw new Error(`no controller for ${key}`);
    const started = performance.now();
    this.opts.log.debug('reconcile started', { kind, ...ref });
    try {
      return await controller.reconcile(ref);
    } finally {
      const ms = Math.round(performance.now() - started);
      this.opts.log.debug('reconcile ended', { kind, ...ref, ms });
    }
  }

  /**
   * Reconciles one object now and resolves once a reconcile of it that began after the call
   * has ended: what a test waits on to see what the present state leads to, in place of a sleep.
   */
  reconcileNow(kind: ResourceKind, ref: ObjectRef): Promise<void> {
    return this.queue.runNow(queueKey(kind, ref));
  }

  /** Stops the workers (waiting for those in flight) and the informers. */
  async stop(): Promise<void> {
    this.opts.metrics?.attach(undefined);
    await this.queue.stop();
    await this.events.flush();
    await this.machineMeter?.stop();
    await this.logShipping?.stop();
    await this.usage.close();
    await this.cache.stop();
  }
}
