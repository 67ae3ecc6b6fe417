/**
 * A list-watch cache of one resource that stays up: client-node's informer, restarted
 * with backoff after the errors it gives up on.
 *
 * client-node 1.4's `ListWatch` (cache.js) re-lists by itself on 410 Gone, and re-watches
 * from the last resourceVersion when the server ends a watch cleanly; on any other error
 * (a failed list, a refused connection, a non-200 watch response, a broken stream) it
 * calls its `error` callbacks and stops for good. This wrapper restarts it. The cache and
 * resourceVersion survive a restart, so a restart resumes the watch rather than re-listing
 * (unless the resourceVersion is too old by then, which the 410 path handles).
 */
import { performance } from 'node:perf_hooks';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  ListWatch,
  Watch,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
  type ObjectCache,
  type V1ConfigMap,
  type V1CronJob,
  type V1Deployment,
  type V1Job,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node';
import { createLogger, type Logger } from '../logger.js';
import type { ObjectWithMeta } from './owner.js';
import { backoffDelay } from './backoff.js';

/** A list response: its items and the resourceVersion to watch from. */
export interface ObjectList<T> {
  /** `_continue` from the typed clients, `continue` in the raw JSON of custom objects. */
  metadata?: { resourceVersion?: string; _continue?: string; continue?: string };
  items: T[];
}

/**
 * What an informer lists and watches: the collection's path (cluster-wide, e.g.
 * `/apis/apps/v1/deployments`), a function listing the same collection, and the label
 * selector both use. Build one with the helpers below so the three agree.
 */
export interface InformerSource<T extends ObjectWithMeta> {
  path: string;
  listFn: () => Promise<ObjectList<T>>;
  labelSelector?: string;
}

/** Events an informer emits for cached objects. */
export type InformerEvent = 'add' | 'update' | 'delete';

/**
 * Events of an informer's watch: `connect` as it starts to list and watch (at start, after a
 * restart, and each time it resumes after the server ended a watch), `disconnect` as a watch
 * request ends (the server ended it, the connection broke, or `stop()` closed it).
 */
export type WatchEvent = 'connect' | 'disconnect';

/** Options of a {@link ResilientInformer}. */
export interface ResilientInformerOptions {
  /** Names the informer in logs (default: the path). */
  name?: string;
  /** First restart delay after an error (default 500 ms), doubling up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  /** Longest restart delay (default 30 s). */
  maxBackoffMs?: number;
  /** A watch that stayed up this long without error starts the backoff over (default 30 s). */
  resetBackoffAfterMs?: number;
  /**
   * Asks the server to end each watch after this many seconds, after which the informer
   * resumes from its resourceVersion. Default: random in [300, 600), as client-go does,
   * so that a watch on a silently dead connection does not hang for ever and replicas do
   * not reconnect in step.
   */
  watchTimeoutSeconds?: number;
  /**
   * Applied to every object before the cache stores it, listed or watched (client-go's
   * `SetTransform`): drop what no reader needs (managedFields above all) so the cache's
   * memory is the objects' useful part only. Returns the object to store; may mutate it.
   */
  transform?: <O extends ObjectWithMeta>(obj: O) => O;
  logger?: Logger;
}

/** Pages through a list so a large collection is not fetched in one response. */
async function listAllPages<T>(
  fetchPage: (continueToken: string | undefined) => Promise<ObjectList<T>>,
): Promise<ObjectList<T>> {
  const first = await fetchPage(undefined);
  const items = [...first.items];
  let next = continueToken(first);
  while (next) {
    // Continued pages are served from the first page's snapshot; its resourceVersion
    // is the one to watch from.
    const page = await fetchPage(next);
    items.push(...page.items);
    next = continueToken(page);
  }
  return { ...first, items };
}

/**
 * The token of a list's next page. The typed clients rename the field `_continue`;
 * the custom objects client returns the JSON as sent, where it is `continue` (reading
 * only `_continue` cached the first 500 custom objects and no more).
 */
function continueToken(list: ObjectList<unknown>): string | undefined {
  return list.metadata?._continue || list.metadata?.continue || undefined;
}

const PAGE_SIZE = 500;

/**
 * Gives typed list items the shape watch events have. The typed client deserialises
 * timestamps into `Date`s and drops `apiVersion`/`kind` from list items, while watch
 * events carry the raw JSON (strings, with `apiVersion`/`kind`); without this the same
 * object would look different depending on which path put it in the cache. Timestamps
 * are therefore strings at runtime, whatever the generated types say.
 */
function asWatched<T>(list: ObjectList<T>, apiVersion: string, kind: string): ObjectList<T> {
  const items = list.items.map(
    (item) => ({ ...JSON.parse(JSON.stringify(item)), apiVersion, kind }) as T,
  );
  return { ...list, items };
}

/** A custom resource, e.g. `{ group: 'svc.dev', version: 'v1alpha1', plural: 'agents' }`. */
export function customResourceSource<T extends ObjectWithMeta>(
  kc: KubeConfig,
  resource: { group: string; version: string; plural: string },
  labelSelector?: string,
  /** Objects per list page (tests page small collections). */
  pageSize = PAGE_SIZE,
): InformerSource<T> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const { group, version, plural } = resource;
  return {
    path: `/apis/${group}/${version}/${plural}`,
    labelSelector,
    // Custom objects come back as plain JSON already, in the shape watch events have.
    listFn: () =>
      listAllPages<T>(
        (cont) =>
          api.listClusterCustomObject({
            group,
            version,
            plural,
            labelSelector,
            limit: pageSize,
            _continue: cont,
          }) as Promise<ObjectList<T>>,
      ),
  };
}

/** Deployments in every namespace. */
export function deploymentSource(
  kc: KubeConfig,
  labelSelector?: string,
): InformerSource<V1Deployment> {
  const api = kc.makeApiClient(AppsV1Api);
  return {
    path: '/apis/apps/v1/deployments',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listDeploymentForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'apps/v1',
        'Deployment',
      ),
  };
}

/** Jobs in every namespace. */
export function jobSource(kc: KubeConfig, labelSelector?: string): InformerSource<V1Job> {
  const api = kc.makeApiClient(BatchV1Api);
  return {
    path: '/apis/batch/v1/jobs',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listJobForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'batch/v1',
        'Job',
      ),
  };
}

/** Pods in every namespace. */
export function podSource(kc: KubeConfig, labelSelector?: string): InformerSource<V1Pod> {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    path: '/api/v1/pods',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listPodForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'v1',
        'Pod',
      ),
  };
}

/** CronJobs in every namespace. */
export function cronJobSource(kc: KubeConfig, labelSelector?: string): InformerSource<V1CronJob> {
  const api = kc.makeApiClient(BatchV1Api);
  return {
    path: '/apis/batch/v1/cronjobs',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listCronJobForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'batch/v1',
        'CronJob',
      ),
  };
}

/** Services in every namespace. */
export function serviceSource(kc: KubeConfig, labelSelector?: string): InformerSource<V1Service> {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    path: '/api/v1/services',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listServiceForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'v1',
        'Service',
      ),
  };
}

/** ConfigMaps in every namespace. */
export function configMapSource(
  kc: KubeConfig,
  labelSelector?: string,
): InformerSource<V1ConfigMap> {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    path: '/api/v1/configmaps',
    labelSelector,
    listFn: async () =>
      asWatched(
        await listAllPages((cont) =>
          api.listConfigMapForAllNamespaces({ labelSelector, limit: PAGE_SIZE, _continue: cont }),
        ),
        'v1',
        'ConfigMap',
      ),
  };
}

/** Appends query parameters to a path that may already carry some. */
function withQuery(path: string, params: Record<string, string>): string {
  const query = new URLSearchParams(params).toString();
  return `${path}${path.includes('?') ? '&' : '?'}${query}`;
}

/**
 * A cluster-wide list-watch cache of one resource that restarts itself after errors with
 * exponential backoff. Callbacks receive every object on the first list (as `add`), then
 * changes; after a re-list, `delete` for objects that vanished meanwhile.
 */
export class ResilientInformer<T extends ObjectWithMeta> {
  /** Resolves once the first list has filled the cache; stays pending if never. */
  readonly synced: Promise<void>;
  private resolveSynced!: () => void;
  // client-node's informer is typed for its own KubernetesObject; the custom resources'
  // types (crds/) do not fit it, so it is held untyped and its objects cast back to T.
  private readonly informer: Informer<KubernetesObject> & ObjectCache<KubernetesObject>;
  private readonly callbacks: Record<InformerEvent, Array<(obj: T) => void>> = {
    add: [],
    update: [],
    delete: [],
  };
  private readonly errorCallbacks: Array<(err: unknown) => void> = [];
  private readonly watchCallbacks: Record<WatchEvent, Array<() => void>> = {
    connect: [],
    disconnect: [],
  };
  private readonly name: string;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly resetBackoffAfterMs: number;
  private readonly logger: Logger;
  private started = false;
  private stopped = false;
  private listed = false;
  private failures = 0;
  private upSince: number | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(kc: KubeConfig, source: InformerSource<T>, options: ResilientInformerOptions = {}) {
    this.name = options.name ?? source.path;
    this.initialBackoffMs = options.initialBackoffMs ?? 500;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.resetBackoffAfterMs = options.resetBackoffAfterMs ?? 30_000;
    this.logger = options.logger ?? createLogger('operator');
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    const timeoutSeconds = options.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    // makeInformer only sends resourceVersion and labelSelector with the watch; extra
    // parameters ride on the path, which it prefixes with the server URL as is. Bookmarks
    // keep the resourceVersion fresh, so a resumed watch rarely hits 410 and re-lists.
    const path = withQuery(source.path, {
      timeoutSeconds: String(timeoutSeconds),
      allowWatchBookmarks: 'true',
    });
    const transform = options.transform;
    const listFn: ListPromise<KubernetesObject> = async () => {
      const list = await source.listFn();
      if (transform) list.items = list.items.map(transform);
      this.listed = true;
      return list as Awaited<ReturnType<ListPromise<KubernetesObject>>>;
    };
    // client-node's makeInformer, with the watch's objects transformed before they are stored.
    const watch = new Watch(kc);
    const transformingWatch = transform
      ? ({
          watch: (
            watchPath: string,
            params: Record<string, string | number | boolean | undefined>,
            handler: (phase: string, obj: unknown, raw: unknown) => void,
            done: (err: unknown) => void,
          ) =>
            watch.watch(
              watchPath,
              params,
              (phase, obj: T, raw) =>
                handler(
                  phase,
                  phase === 'ADDED' || phase === 'MODIFIED' ? transform(obj) : obj,
                  raw,
                ),
              done,
            ),
        } as Watch)
      : watch;
    // Each watch request's end is reported before the informer hears of it.
    const reportingWatch = {
      watch: (...[watchPath, params, handler, done]: Parameters<Watch['watch']>) =>
        transformingWatch.watch(watchPath, params, handler, (err) => {
          this.emitWatch('disconnect');
          done(err);
        }),
    } as Watch;
    this.informer = new ListWatch(path, reportingWatch, listFn, false, source.labelSelector);
    for (const event of ['add', 'update', 'delete'] as const) {
      this.informer.on(event, (obj) => this.emit(event, obj as T));
    }
    this.informer.on('error', (err) => this.onError(err));
    this.informer.on('connect', () => this.emitWatch('connect'));
  }

  /** Registers a callback; callbacks run synchronously in registration order. */
  on(event: InformerEvent, cb: (obj: T) => void): this;
  /** Registers a callback for errors that made the informer restart. */
  on(event: 'error', cb: (err: unknown) => void): this;
  /** Registers a callback for its watch's connects and disconnects (see {@link WatchEvent}). */
  on(event: WatchEvent, cb: () => void): this;
  on(
    event: InformerEvent | WatchEvent | 'error',
    cb: ((obj: T) => void) | ((err: unknown) => void),
  ): this {
    if (event === 'error') this.errorCallbacks.push(cb as (err: unknown) => void);
    else if (event === 'connect' || event === 'disconnect') {
      this.watchCallbacks[event].push(cb as () => void);
    } else this.callbacks[event].push(cb as (obj: T) => void);
    return this;
  }

  /** Lists and starts watching in the background; await `synced` for the first list. */
  start(): void {
    if (this.started) throw new Error(`informer ${this.name} already started`);
    this.started = true;
    void this.connect();
  }

  /** Closes the watch and cancels any pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.informer.stop();
  }

  /**
   * True while the watch is up: listed, and no error since (a failed watch
   * waiting for its restart is not). What the cache holds may then lag the
   * API only by the watch's own latency.
   */
  get watching(): boolean {
    return this.listed && this.upSince !== undefined && !this.restartTimer && !this.stopped;
  }

  /** The cached objects, all namespaces. */
  list(): readonly T[] {
    return this.informer.list() as readonly KubernetesObject[] as readonly T[];
  }

  /** The cached objects of one namespace. */
  listIn(namespace: string): readonly T[] {
    if (!namespace) return [];
    return this.informer.list(namespace) as readonly KubernetesObject[] as readonly T[];
  }

  /** The cached object, if any; `namespace` is `''` for a cluster-scoped kind. */
  get(namespace: string, name: string): T | undefined {
    return this.informer.get(name, namespace) as T | undefined;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const failuresBefore = this.failures;
    try {
      // Resolves once the watch request is answered; failures arrive via onError.
      await this.informer.start();
    } catch (err) {
      // Only setup errors before its own try blocks reject (e.g. kubeconfig auth).
      this.onError(err);
      return;
    }
    if (this.stopped) {
      // stop() ran while the list was in flight; the informer starts its watch after
      // the list without checking, so close that watch now.
      await this.informer.stop();
      return;
    }
    if (this.listed) this.resolveSynced();
    if (this.failures === failuresBefore && !this.restartTimer) this.upSince = performance.now();
  }

  private onError(err: unknown): void {
    // Stopping aborts the watch request, which the informer reports as an error.
    if (this.stopped) return;
    for (const cb of this.errorCallbacks) this.safely(() => cb(err));
    if (this.restartTimer) return;
    if (
      this.upSince !== undefined &&
      performance.now() - this.upSince >= this.resetBackoffAfterMs
    ) {
      this.failures = 0;
    }
    this.upSince = undefined;
    this.failures += 1;
    const delay = backoffDelay(this.failures, {
      baseDelayMs: this.initialBackoffMs,
      maxDelayMs: this.maxBackoffMs,
      jitter: 0.1,
    });
    this.logger.warn('watch failed; restarting', {
      informer: this.name,
      failures: this.failures,
      delay_ms: delay,
      error: err,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.connect();
    }, delay);
  }

  private emit(event: InformerEvent, obj: T): void {
    for (const cb of this.callbacks[event]) this.safely(() => cb(obj));
  }

  private emitWatch(event: WatchEvent): void {
    for (const cb of this.watchCallbacks[event]) this.safely(cb);
  }

  /**
   * Runs a callback, logging what it throws: client-node calls watch callbacks from an
   * async function nobody awaits, so a throw there would be an unhandled rejection, and
   * during a list it would abort the informer's start.
   */
  private safely(run: () => void): void {
    try {
      run();
    } catch (err) {
      this.logger.error('informer callback failed', { informer: this.name, error: err });
    }
  }
}
