/**
 * A watch-fed cache of one custom resource kind in one Kubernetes API, which
 * the API server's reads are answered from (`CustomResourceRepository` asks it
 * first). One shared informer per kind and API (`common/kube/informer.ts`:
 * relists on 410 Gone, restarts a broken watch with backoff), filled before
 * the server listens.
 *
 * Staleness: an object another process changed (the operator's status, a
 * kubectl edit) is seen once its watch event arrives, normally within
 * milliseconds; while the watch is broken (an error, then a restart with
 * backoff) the cache answers nothing and reads go to the API. What this process wrote is never read stale (read-your-writes): each
 * write notes the resourceVersion it produced, and until the watch has
 * delivered that version (or a later one) a read of the object, or a list of
 * its namespace, goes to the API instead. An object the cache does not hold
 * is also looked up in the API before answering "not found", so one created
 * elsewhere a moment ago is never reported missing.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { stripForCache } from '../../../common/kube/cache-transforms.js';
import type { ResourceKind, ResourceOf } from '../../../common/kube/custom-resources.js';
import { customResourceSource, ResilientInformer } from '../../../common/kube/informer.js';
import type { Logger } from '../../../common/logger.js';
import { API_GROUP, API_VERSION, PLURALS } from '../../../crds/src/index.js';
import { matchesLabelSelector, parseLabelSelector } from './label-selector.js';

/** How long a noted write waits to be seen by the watch before it is forgotten (reads then trust the cache). */
const PENDING_TTL_MS = 60_000;

interface Pending {
  /** The resourceVersion the cache must reach (or pass) before it answers for the object. */
  version: bigint | string;
  expires: number;
}

/** Whether `seen` is at least `wanted` (numbers compare as numbers; other versions only by equality). */
function reached(seen: string | undefined, wanted: bigint | string): boolean {
  if (seen === undefined) return false;
  if (typeof wanted === 'string') return seen === wanted;
  try {
    return BigInt(seen) >= wanted;
  } catch {
    return false;
  }
}

function asVersion(rv: string): bigint | string {
  try {
    return /^\d+$/.test(rv) ? BigInt(rv) : rv;
  } catch {
    return rv;
  }
}

/** A cache of one kind in one API; see the module comment for what it promises. */
export class ResourceCache<K extends ResourceKind> {
  /** The shared informer (the edge's agent index watches through it too). */
  readonly informer: ResilientInformer<ResourceOf<K>>;
  private readonly pending = new Map<string, Pending>();
  /** Per label key: `namespace/value` to the names of the objects seen with that label value. */
  private readonly labelIndexes = new Map<string, Map<string, Set<string>>>();
  private started = false;
  /** True once the first list is in: before that the cache answers nothing. */
  private filled = false;

  constructor(
    kc: KubeConfig,
    readonly kind: K,
    log: Logger,
  ) {
    this.informer = new ResilientInformer<ResourceOf<K>>(
      kc,
      customResourceSource<ResourceOf<K>>(kc, {
        group: API_GROUP,
        version: API_VERSION,
        plural: PLURALS[kind],
      }),
      // Without managedFields, which no route reads: a read copies the object out of the cache.
      { name: `${kind} cache`, logger: log.child({ cache: kind }), transform: stripForCache },
    );
    // A watch event that reaches a noted version settles it.
    const settle = (object: ResourceOf<K>) => {
      const key = keyOf(object.metadata?.namespace, object.metadata?.name);
      const wanted = this.pending.get(key);
      if (wanted && reached(object.metadata?.resourceVersion, wanted.version)) {
        this.pending.delete(key);
      }
    };
    this.informer
      .on('add', (object: ResourceOf<K>) => {
        settle(object);
        this.indexLabels(object);
      })
      .on('update', (object: ResourceOf<K>) => {
        settle(object);
        this.indexLabels(object);
      })
      .on('delete', (object: ResourceOf<K>) => {
        this.pending.delete(keyOf(object.metadata?.namespace, object.metadata?.name));
        this.unindexLabels(object);
      });
  }

  /**
   * Lists and starts watching; resolves once the first list is in, or at the
   * first failure to list (the API unreachable at start): the informer keeps
   * retrying with backoff, and until it has listed, every read goes to the API.
   */
  async start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      void this.informer.synced.then(() => (this.filled = true));
      const failed = new Promise<void>((resolve) => this.informer.on('error', () => resolve()));
      this.informer.start();
      await Promise.race([this.informer.synced, failed]);
    }
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    if (this.started) await this.informer.stop();
  }

  /** Notes an object this process just wrote: reads of it wait for the watch to bring that version. */
  noteWrite(object: ResourceOf<K> | null | undefined): void {
    const rv = object?.metadata?.resourceVersion;
    if (!object || !rv) return;
    const key = keyOf(object.metadata?.namespace, object.metadata?.name);
    if (
      reached(
        this.informer.get(object.metadata?.namespace ?? '', object.metadata?.name ?? '')?.metadata
          ?.resourceVersion,
        asVersion(rv),
      )
    )
      return;
    this.pending.set(key, { version: asVersion(rv), expires: Date.now() + PENDING_TTL_MS });
  }

  /**
   * Notes a delete this process just asked for: until the watch says the
   * object is gone or changed (a finalizer keeps it, with a deletion
   * timestamp), reads of it go to the API.
   */
  noteDelete(namespace: string, name: string): void {
    const cached = this.informer.get(namespace, name);
    const rv = cached?.metadata?.resourceVersion;
    if (!cached || !rv) return;
    const version = asVersion(rv);
    // Past the version cached now: a later event (or its removal) settles it.
    this.pending.set(keyOf(namespace, name), {
      version: typeof version === 'bigint' ? version + 1n : `${rv}+deleted`,
      expires: Date.now() + PENDING_TTL_MS,
    });
  }

  /**
   * The cached object when the cache can answer for it; undefined when the
   * caller must ask the API (not cached, or a write of ours not seen yet).
   */
  get(namespace: string, name: string): ResourceOf<K> | undefined {
    if (!this.answering() || this.isPending(keyOf(namespace, name))) return undefined;
    return this.informer.get(namespace, name);
  }

  /**
   * The cached objects of a namespace matching `labelSelector`; undefined
   * when the caller must ask the API (a write of ours in that namespace not
   * seen yet, or a selector this cache does not evaluate).
   */
  list(namespace: string, labelSelector?: string): Array<ResourceOf<K>> | undefined {
    const selector = labelSelector ? parseLabelSelector(labelSelector) : [];
    if (!this.answering() || !selector || this.namespacePending(namespace)) return undefined;
    return this.informer
      .listIn(namespace)
      .filter((o) => matchesLabelSelector(o.metadata?.labels, selector));
  }

  /**
   * The cached objects of a namespace whose label `key` is `value`, from an index the
   * watch keeps (built from the cache at the first call for a key): the same answer as
   * {@link list} with the selector `key=value`, without walking the namespace.
   */
  listByLabel(namespace: string, key: string, value: string): Array<ResourceOf<K>> | undefined {
    if (!this.answering() || this.namespacePending(namespace)) return undefined;
    let index = this.labelIndexes.get(key);
    if (!index) {
      index = new Map();
      this.labelIndexes.set(key, index);
      for (const object of this.informer.list()) this.indexLabels(object);
    }
    const found: Array<ResourceOf<K>> = [];
    // An entry can outlive a label change; each is checked against the cached object.
    for (const name of index.get(`${namespace}/${value}`) ?? []) {
      const object = this.informer.get(namespace, name);
      if (object?.metadata?.labels?.[key] === value) found.push(object);
    }
    return found;
  }

  private indexLabels(object: ResourceOf<K>): void {
    for (const { index, entry, name } of this.labelEntries(object)) {
      let names = index.get(entry);
      if (!names) index.set(entry, (names = new Set()));
      names.add(name);
    }
  }

  private unindexLabels(object: ResourceOf<K>): void {
    for (const { index, entry, name } of this.labelEntries(object)) {
      index.get(entry)?.delete(name);
      if (index.get(entry)?.size === 0) index.delete(entry);
    }
  }

  /** The object's place in each label index: the index, its `namespace/value` entry, its name. */
  private *labelEntries(object: ResourceOf<K>) {
    const { namespace, name, labels } = object.metadata ?? {};
    if (!name) return;
    for (const [key, index] of this.labelIndexes) {
      const value = labels?.[key];
      if (value !== undefined) yield { index, entry: `${namespace ?? ''}/${value}`, name };
    }
  }

  /** Whether a write of ours in the namespace is not seen yet. */
  private namespacePending(namespace: string): boolean {
    const prefix = `${namespace}/`;
    for (const key of this.pending.keys()) {
      if (key.startsWith(prefix) && this.isPending(key)) return true;
    }
    return false;
  }

  /** Filled, and its watch up: while a broken watch waits to restart, reads go to the API. */
  private answering(): boolean {
    return this.filled && this.informer.watching;
  }

  private isPending(key: string): boolean {
    const wanted = this.pending.get(key);
    if (!wanted) return false;
    if (wanted.expires < Date.now()) {
      this.pending.delete(key);
      return false;
    }
    return true;
  }
}

function keyOf(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? ''}/${name ?? ''}`;
}
