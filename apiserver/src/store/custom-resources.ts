/**
 * One kind of the platform's custom resources as the API server's routes use
 * it: the shared typed client (`common/kube/custom-resources.ts`) with the
 * error handling every route needs: NotFound is `null`, an unreachable API is
 * 503 SERVICE_UNAVAILABLE, and updates replace the object at the
 * resourceVersion read, retrying a few times on a conflict before giving up
 * with 503 RESOURCE_BUSY. Given a {@link ResourceCache}, reads are answered
 * from it (see resource-cache.ts for staleness and read-your-writes) and
 * every write is noted there; updates always read the object from the API.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  CustomResourceClient,
  type ResourceKind,
  type ResourceOf,
} from '../../../common/kube/custom-resources.js';
import { cloneObject } from '../../../common/clone-object.js';
import { isKubeConflict, isKubeNotFound } from '../../../common/kube/errors.js';
import { ResourceBusy } from '../errors/catalogue.js';
import { asUnavailable } from './kube-errors.js';
import type { ResourceCache } from './resource-cache.js';

const UPDATE_ATTEMPTS = 4;

/** CRUD of one custom resource kind. */
export class CustomResourceRepository<
  K extends ResourceKind,
  T extends ResourceOf<K> = ResourceOf<K>,
> {
  private readonly client: CustomResourceClient;

  constructor(
    kc: KubeConfig,
    private readonly kind: K,
    private readonly describe = 'resource',
    private readonly cache?: ResourceCache<K>,
  ) {
    this.client = new CustomResourceClient(kc);
  }

  /** Creates the object in its namespace. */
  async create(object: T): Promise<T> {
    const created = (await this.client.create(this.kind, object).catch(asUnavailable)) as T;
    this.cache?.noteWrite(created);
    return created;
  }

  /** The object, or null. */
  async get(namespace: string, name: string): Promise<T | null> {
    const cached = this.cache?.get(namespace, name);
    if (cached) return cloneObject(cached) as T;
    return this.getLive(namespace, name);
  }

  /**
   * The object, or null, without a copy when the cache holds it: for callers that only
   * read it (a GET's answer). It is the cache's own object: never change it.
   */
  async peek(namespace: string, name: string): Promise<Readonly<T> | null> {
    const cached = this.cache?.get(namespace, name);
    if (cached) return cached as T;
    return this.getLive(namespace, name);
  }

  /** The object as the API has it now, or null. */
  private async getLive(namespace: string, name: string): Promise<T | null> {
    return (await this.client.get(this.kind, namespace, name).catch(asUnavailable)) as T | null;
  }

  /** The objects of a namespace (none when it does not exist), optionally by label selector. */
  async list(namespace: string, labelSelector?: string): Promise<T[]> {
    const cached = this.cache?.list(namespace, labelSelector);
    if (cached) return cached.map((o) => cloneObject(o) as T);
    return (await this.client
      .list(this.kind, namespace, { labelSelector })
      .catch(asUnavailable)) as T[];
  }

  /**
   * Applies `change` to the current object and replaces it (its spec and
   * metadata), re-reading and retrying on a conflict. Null when it is gone.
   */
  async update(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
  ): Promise<T | null> {
    return this.replaceWithRetry(namespace, name, change, (body) =>
      this.client.write(this.kind, body),
    );
  }

  /** Like {@link update}, through the status subresource. */
  async updateStatus(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
  ): Promise<T | null> {
    return this.replaceWithRetry(namespace, name, change, (body) =>
      this.client.writeStatus(this.kind, body),
    );
  }

  private async replaceWithRetry(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
    replace: (body: T) => Promise<ResourceOf<K>>,
  ): Promise<T | null> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.getLive(namespace, name);
      if (!current) return null;
      await change(current);
      try {
        const written = (await replace(current)) as T;
        this.cache?.noteWrite(written);
        return written;
      } catch (err) {
        if (isKubeNotFound(err)) return null;
        if (!isKubeConflict(err)) asUnavailable(err);
      }
    }
    throw new ResourceBusy(
      `The ${this.describe} is being changed by another request; retry in a few seconds.`,
    );
  }

  /** Deletes the object; false when it was already gone. */
  async delete(namespace: string, name: string): Promise<boolean> {
    const deleted = await this.client.delete(this.kind, namespace, name).catch(asUnavailable);
    this.cache?.noteDelete(namespace, name);
    return deleted;
  }
}
