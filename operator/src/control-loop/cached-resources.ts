/**
 * The reconcilers' reads of custom resources, from the informer caches rather than
 * the API (no request per reconcile), and their status writes. Reads see the
 * operator's own writes at once (see written-overlay.ts); what others write reaches
 * the cache before the watch event that enqueues the reconcile reading it. A key the
 * cache does not hold (yet: a watch of another kind may have enqueued it first) is
 * read from the API, so a miss is never taken for a deletion.
 */
import type {
  CustomResourceClient,
  ResourceKind,
  ResourceOf,
} from '../../../common/kube/custom-resources.js';
import type { ResilientInformer } from '../../../common/kube/informer.js';
import { WrittenOverlay } from './written-overlay.js';
import { stripForCache } from '../../../common/kube/cache-transforms.js';

/** The caches of the custom resources, by kind. */
export type ResourceCaches = { [K in ResourceKind]: ResilientInformer<ResourceOf<K>> };

/** What a reconciler reads and writes of the platform's custom resources. */
export interface ResourceAccess {
  /** The object (cached when the cache holds it), or null when it does not exist. */
  get<K extends ResourceKind>(
    kind: K,
    namespace: string,
    name: string,
  ): Promise<ResourceOf<K> | null>;
  /** Replaces the status of `object` (as read, with its resourceVersion) by `status`. */
  writeStatus<K extends ResourceKind>(
    kind: K,
    object: ResourceOf<K>,
    status: ResourceOf<K>['status'],
  ): Promise<ResourceOf<K>>;
}

/** Cached reads and overlaid status writes of the custom resources. */
export class CachedResources implements ResourceAccess {
  private readonly overlays = new Map<ResourceKind, WrittenOverlay<ResourceOf<ResourceKind>>>();

  constructor(
    private readonly client: CustomResourceClient,
    private readonly caches: ResourceCaches,
  ) {
    for (const kind of Object.keys(caches) as ResourceKind[]) {
      const overlay = new WrittenOverlay<ResourceOf<ResourceKind>>();
      this.overlays.set(kind, overlay);
      // Any change the cache sees supersedes what was written before it.
      const forget = (obj: ResourceOf<ResourceKind>) =>
        overlay.forget(keyOf(obj.metadata.namespace ?? '', obj.metadata.name ?? ''));
      const cache = caches[kind] as ResilientInformer<ResourceOf<ResourceKind>>;
      cache.on('update', forget).on('delete', forget);
    }
  }

  async get<K extends ResourceKind>(
    kind: K,
    namespace: string,
    name: string,
  ): Promise<ResourceOf<K> | null> {
    const cached = this.caches[kind].get(namespace, name) as ResourceOf<K> | undefined;
    const overlay = this.overlays.get(kind) as WrittenOverlay<ResourceOf<K>>;
    const fresh = overlay.pick(keyOf(namespace, name), cached);
    if (fresh) return fresh;
    return this.client.get(kind, namespace, name);
  }

  async writeStatus<K extends ResourceKind>(
    kind: K,
    object: ResourceOf<K>,
    status: ResourceOf<K>['status'],
  ): Promise<ResourceOf<K>> {
    const written = stripForCache(await this.client.writeStatus(kind, object, status));
    const overlay = this.overlays.get(kind) as WrittenOverlay<ResourceOf<K>>;
    const { namespace = '', name = '', resourceVersion } = object.metadata;
    // Only over the version the cache holds: a write over a live read is the cache's news.
    if (this.caches[kind].get(namespace, name)?.metadata.resourceVersion === resourceVersion)
      overlay.record(keyOf(namespace, name), resourceVersion, written);
    return written;
  }
}

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
