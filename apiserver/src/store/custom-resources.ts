/**
 * Typed access to one kind of the platform's custom resources in a namespace,
 * with the error handling every caller needs: NotFound is `null`, an
 * unreachable API is 503 SERVICE_UNAVAILABLE, and updates replace the object at
 * the resourceVersion read, retrying a few times on a conflict before giving
 * up with 503 RESOURCE_BUSY.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, type ObjectMeta } from '../../../crds/src/index.js';
import { ResourceBusy } from '../errors/catalogue.js';
import { asUnavailable, isKubeConflict, isKubeNotFound } from './kube-errors.js';

const UPDATE_ATTEMPTS = 4;

/** Any of the platform's custom resources. */
export interface CustomResource {
  metadata: ObjectMeta;
  status?: unknown;
}

/** CRUD of one custom resource kind. */
export class CustomResourceRepository<T extends CustomResource> {
  private readonly api: CustomObjectsApi;

  constructor(
    kc: KubeConfig,
    private readonly plural: string,
    private readonly describe = 'resource',
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  private coords(namespace: string) {
    return { group: API_GROUP, version: API_VERSION, namespace, plural: this.plural };
  }

  /** Creates the object in its namespace. */
  async create(object: T): Promise<T> {
    try {
      return (await this.api.createNamespacedCustomObject({
        ...this.coords(object.metadata.namespace ?? ''),
        body: object,
      })) as T;
    } catch (err) {
      return asUnavailable(err);
    }
  }

  /** The object, or null. */
  async get(namespace: string, name: string): Promise<T | null> {
    try {
      return (await this.api.getNamespacedCustomObject({ ...this.coords(namespace), name })) as T;
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      return asUnavailable(err);
    }
  }

  /** The objects of a namespace (none when it does not exist), optionally by label selector. */
  async list(namespace: string, labelSelector?: string): Promise<T[]> {
    try {
      const list = (await this.api.listNamespacedCustomObject({
        ...this.coords(namespace),
        labelSelector,
      })) as {
        items: T[];
      };
      return list.items;
    } catch (err) {
      if (isKubeNotFound(err)) return [];
      return asUnavailable(err);
    }
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
      this.api.replaceNamespacedCustomObject({ ...this.coords(namespace), name, body }),
    );
  }

  /** Like {@link update}, through the status subresource. */
  async updateStatus(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
  ): Promise<T | null> {
    return this.replaceWithRetry(namespace, name, change, (body) =>
      this.api.replaceNamespacedCustomObjectStatus({ ...this.coords(namespace), name, body }),
    );
  }

  private async replaceWithRetry(
    namespace: string,
    name: string,
    change: (object: T) => void | Promise<void>,
    replace: (body: T) => Promise<unknown>,
  ): Promise<T | null> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.get(namespace, name);
      if (!current) return null;
      await change(current);
      try {
        return (await replace(current)) as T;
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
    try {
      await this.api.deleteNamespacedCustomObject({ ...this.coords(namespace), name });
      return true;
    } catch (err) {
      if (isKubeNotFound(err)) return false;
      return asUnavailable(err);
    }
  }
}
