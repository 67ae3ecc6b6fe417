/**
 * The API server's watch-fed caches: one {@link ResourceCache} per kind it
 * serves (Agent, AgentDeployment, Workspace) in each region's Kubernetes API,
 * attached to that API ({@link cachesOf}) so every repository built on it
 * reads through them. Started, and filled, before the server listens.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ResourceKind } from '../../../common/kube/custom-resources.js';
import type { Logger } from '../../../common/logger.js';
import type { RegionApi, RegionApis } from '../regions/region-apis.js';
import { ResourceCache } from './resource-cache.js';

/** The cached kinds. */
export const CACHED_KINDS = ['Agent', 'AgentDeployment', 'Workspace'] as const;

/** A cached kind. */
export type CachedKind = (typeof CACHED_KINDS)[number];

/** The caches of one API, by kind. */
export class KindCaches {
  private readonly byKind = new Map<ResourceKind, ResourceCache<ResourceKind>>();

  constructor(kc: KubeConfig, log: Logger) {
    for (const kind of CACHED_KINDS) {
      this.byKind.set(kind, new ResourceCache(kc, kind, log) as ResourceCache<ResourceKind>);
    }
  }

  /** The cache of `kind`, if it is a cached kind. */
  of<K extends ResourceKind>(kind: K): ResourceCache<K> | undefined {
    return this.byKind.get(kind) as ResourceCache<K> | undefined;
  }

  /** Every cache of this API. */
  all(): Array<ResourceCache<ResourceKind>> {
    return [...this.byKind.values()];
  }
}

const attached = new WeakMap<RegionApi, KindCaches>();

/** The caches attached to `api`, if any (repositories built on it read through them). */
export function cachesOf(api: RegionApi): KindCaches | undefined {
  return attached.get(api);
}

/** Attaches caches to every API of `apis`; start them before serving. */
export class RegionCaches {
  private readonly caches: KindCaches[];

  constructor(apis: RegionApis, log: Logger) {
    this.caches = apis.apis.map((api) => {
      let caches = attached.get(api);
      if (!caches) {
        caches = new KindCaches(api.kc, log.child({ region: api.regions[0] }));
        attached.set(api, caches);
      }
      return caches;
    });
  }

  /** Lists and watches every kind in every API; resolves once all are filled. */
  async start(): Promise<void> {
    await Promise.all(this.caches.flatMap((c) => c.all().map((cache) => cache.start())));
  }

  /** Stops every watch. */
  async stop(): Promise<void> {
    await Promise.all(this.caches.flatMap((c) => c.all().map((cache) => cache.stop())));
  }
}
