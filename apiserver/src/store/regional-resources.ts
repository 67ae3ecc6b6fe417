/**
 * One kind of custom resource across the regions' Kubernetes APIs: a copy of
 * an object in each API of its placement (regions/placement.ts). With one API
 * (a single region, or a name list) every call is the plain repository's, as
 * before. With several, writes go to every copy, reads ask each API at once
 * and answer the first found in region order, and a new copy's owner
 * references point at the owner's copy in the same API (each API has its own
 * UIDs, and its garbage collector would delete a copy whose owner it does not
 * know).
 */
import { cloneObject } from '../../../common/clone-object.js';
import { cachesOf } from './region-caches.js';
import {
  CustomResourceClient,
  type ResourceKind,
  type ResourceOf,
} from '../../../common/kube/custom-resources.js';
import { LABELS, PLURALS } from '../../../crds/src/index.js';
import type { RegionApi, RegionApis } from '../regions/region-apis.js';
import {
  PLACEMENT_ANNOTATION,
  placementOf,
  setPlacement,
  setRegionLabel,
} from '../regions/placement.js';
import { ServiceUnavailable } from '../errors/catalogue.js';
import { CustomResourceRepository } from './custom-resources.js';
import { asUnavailable } from './kube-errors.js';

/** One region's copy of an object. */
export interface RegionCopy<T> {
  region: string;
  api: RegionApi;
  object: T;
}

/** CRUD of one kind over every region's API. */
export class RegionalRepository<
  K extends ResourceKind,
  T extends ResourceOf<K> = ResourceOf<K>,
> extends CustomResourceRepository<K, T> {
  private readonly each: Array<{ api: RegionApi; repo: CustomResourceRepository<K, T> }>;

  constructor(
    readonly apis: RegionApis,
    kind: K,
    describe = 'resource',
  ) {
    super(apis.homeApi.kc, kind, describe, cachesOf(apis.homeApi)?.of(kind));
    // With one API, the inherited methods are used and `each` only serves copies().
    this.each = apis.apis.map((api) => ({
      api,
      repo: new CustomResourceRepository<K, T>(api.kc, kind, describe, cachesOf(api)?.of(kind)),
    }));
  }

  /**
   * Creates a copy of `object` in each API of its placement, labelled with its
   * region; answers the first. When a later copy fails, the earlier ones are deleted.
   */
  override async create(object: T): Promise<T> {
    if (!this.apis.single) await this.inheritPlacement(object);
    const targets = this.apis.targets(placementOf(object, [this.apis.home]));
    const created: Array<{ repo: CustomResourceRepository<K, T>; object: T }> = [];
    try {
      for (const target of targets) {
        const copy = cloneObject(object);
        setRegionLabel(copy, target.region);
        if (!this.apis.single) await this.bindOwners(copy, target.api);
        const repo = this.repoOf(target.api);
        created.push({ repo, object: await repo.create(copy) });
      }
    } catch (err) {
      for (const c of created) {
        const { namespace, name } = c.object.metadata;
        await c.repo.delete(namespace ?? '', name ?? '').catch(() => undefined);
      }
      throw err;
    }
    return created[0]!.object;
  }

  /** The first copy found, in region order; null when there is none. */
  override async get(namespace: string, name: string): Promise<T | null> {
    if (this.apis.single) return super.get(namespace, name);
    return this.firstCopy((repo) => repo.get(namespace, name));
  }

  /** Like {@link get}, without copies of cached objects (see CustomResourceRepository.peek). */
  override async peek(namespace: string, name: string): Promise<Readonly<T> | null> {
    if (this.apis.single) return super.peek(namespace, name);
    return this.firstCopy((repo) => repo.peek(namespace, name));
  }

  /** What `read` finds first, in region order, each region's repository read at once. */
  private async firstCopy<R>(
    read: (repo: CustomResourceRepository<K, T>) => Promise<R | null>,
  ): Promise<R | null> {
    const found = await Promise.all(this.each.map((e) => read(e.repo)));
    return found.find((o) => o !== null) ?? null;
  }

  /** The objects of a namespace across regions, one per name (the first copy in region order). */
  override async list(namespace: string, labelSelector?: string): Promise<T[]> {
    if (this.apis.single) return super.list(namespace, labelSelector);
    const seen = new Set<string>();
    const out: T[] = [];
    for (const copy of await this.listCopies(namespace, labelSelector)) {
      const name = copy.object.metadata.name ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      out.push(copy.object);
    }
    return out;
  }

  /** Applies `change` to every copy; answers the first updated. */
  override async update(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
  ): Promise<T | null> {
    if (this.apis.single) return super.update(namespace, name, change);
    return this.first(this.each.map((e) => e.repo.update(namespace, name, change)));
  }

  /** Like {@link update}, through the status subresource. */
  override async updateStatus(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
  ): Promise<T | null> {
    if (this.apis.single) return super.updateStatus(namespace, name, change);
    return this.first(this.each.map((e) => e.repo.updateStatus(namespace, name, change)));
  }

  /** Deletes every copy; false when there was none. */
  override async delete(namespace: string, name: string): Promise<boolean> {
    if (this.apis.single) return super.delete(namespace, name);
    const deleted = await Promise.all(this.each.map((e) => e.repo.delete(namespace, name)));
    return deleted.some(Boolean);
  }

  /** Every copy of the object, in region order, each with the region it is in. */
  async copies(namespace: string, name: string): Promise<RegionCopy<T>[]> {
    const found = await Promise.all(this.each.map((e) => e.repo.get(namespace, name)));
    return this.each.flatMap((e, i) => {
      const object = found[i];
      return object ? [this.copyOf(e.api, object)] : [];
    });
  }

  /** Every copy of the objects of a namespace, in region order. */
  async listCopies(namespace: string, labelSelector?: string): Promise<RegionCopy<T>[]> {
    const lists = await Promise.all(this.each.map((e) => e.repo.list(namespace, labelSelector)));
    return this.each.flatMap((e, i) => lists[i]!.map((object) => this.copyOf(e.api, object)));
  }

  private copyOf(api: RegionApi, object: T): RegionCopy<T> {
    return {
      region: this.apis.regionOf(api, object.metadata.labels?.[LABELS.region]),
      api,
      object,
    };
  }

  private repoOf(api: RegionApi): CustomResourceRepository<K, T> {
    return this.each.find((e) => e.api === api)!.repo;
  }

  private async first(writes: Array<Promise<T | null>>): Promise<T | null> {
    return (await Promise.all(writes)).find((o) => o !== null) ?? null;
  }

  /**
   * An object that says no placement of its own is placed where its platform
   * owner is (a run, where its agent is).
   */
  private async inheritPlacement(object: T): Promise<void> {
    if (object.metadata.annotations?.[PLACEMENT_ANNOTATION]) return;
    const ref = object.metadata.ownerReferences?.find((r) => r.kind in PLURALS);
    if (!ref) return;
    for (const { api } of this.each) {
      const owner = await new CustomResourceClient(api.kc)
        .get(ref.kind as ResourceKind, object.metadata.namespace ?? '', ref.name)
        .catch(asUnavailable);
      if (owner) {
        setPlacement(object, placementOf(owner, [this.apis.home]));
        return;
      }
    }
  }

  /** Points the platform owner references of `copy` at the owners' copies in `api`. */
  private async bindOwners(copy: T, api: RegionApi): Promise<void> {
    const client = new CustomResourceClient(api.kc);
    for (const ref of copy.metadata.ownerReferences ?? []) {
      if (!(ref.kind in PLURALS)) continue;
      const owner = await client
        .get(ref.kind as ResourceKind, copy.metadata.namespace ?? '', ref.name)
        .catch(asUnavailable);
      if (!owner?.metadata.uid) {
        throw new ServiceUnavailable(
          `The ${ref.kind} ${ref.name} has no copy in region ${api.regions[0]}; retry.`,
        );
      }
      ref.uid = owner.metadata.uid;
    }
  }
}
