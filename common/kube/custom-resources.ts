/**
 * The one typed client of the platform's custom resources (Agent, AgentDeployment,
 * Workspace), for the API server and the operator alike. NotFound reads as `null`
 * (or an empty list, or `false` on delete); every other failure is thrown as the
 * client raised it, for the caller to classify (`errors.ts`): the API server turns
 * an unreachable API into 503, the operator's work queue retries with backoff.
 * Writes replace the object at the resourceVersion it carries, so a stale write is
 * a 409 conflict, never a lost update.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  PLURALS,
  type Agent,
  type AgentDeployment,
  type ResourceKind,
  type Workspace,
} from '../../crds/src/index.js';
import { isKubeNotFound } from './errors.js';

export type { ResourceKind };

/** The object type of a kind. */
export type ResourceOf<K extends ResourceKind> = K extends 'Agent'
  ? Agent
  : K extends 'AgentDeployment'
    ? AgentDeployment
    : Workspace;

/** Selectors of a list. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** Typed reads and writes of the platform's custom resources. */
export class CustomResourceClient {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  private coords(kind: ResourceKind, namespace: string) {
    return { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS[kind] };
  }

  /** The object, or null when it does not exist. */
  async get<K extends ResourceKind>(
    kind: K,
    namespace: string,
    name: string,
  ): Promise<ResourceOf<K> | null> {
    try {
      return (await this.api.getNamespacedCustomObject({
        ...this.coords(kind, namespace),
        name,
      })) as ResourceOf<K>;
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      throw err;
    }
  }

  /** The objects of a namespace (none when the namespace does not exist). */
  async list<K extends ResourceKind>(
    kind: K,
    namespace: string,
    options: ListOptions = {},
  ): Promise<ResourceOf<K>[]> {
    try {
      const list = (await this.api.listNamespacedCustomObject({
        ...this.coords(kind, namespace),
        ...options,
      })) as { items: ResourceOf<K>[] };
      return list.items;
    } catch (err) {
      if (isKubeNotFound(err)) return [];
      throw err;
    }
  }

  /** The objects of every namespace. */
  async listEverywhere<K extends ResourceKind>(
    kind: K,
    options: ListOptions = {},
  ): Promise<ResourceOf<K>[]> {
    const list = (await this.api.listClusterCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: PLURALS[kind],
      ...options,
    })) as { items: ResourceOf<K>[] };
    return list.items;
  }

  /** Creates the object in its namespace. */
  async create<K extends ResourceKind>(kind: K, object: ResourceOf<K>): Promise<ResourceOf<K>> {
    return (await this.api.createNamespacedCustomObject({
      ...this.coords(kind, object.metadata.namespace ?? ''),
      body: object,
    })) as ResourceOf<K>;
  }

  /** Replaces the spec and metadata of `object` (as read, with its resourceVersion). */
  async write<K extends ResourceKind>(kind: K, object: ResourceOf<K>): Promise<ResourceOf<K>> {
    return (await this.api.replaceNamespacedCustomObject({
      ...this.coords(kind, object.metadata.namespace ?? ''),
      name: object.metadata.name ?? '',
      body: object,
    })) as ResourceOf<K>;
  }

  /** Replaces the status of `object` (as read, with its resourceVersion) by `status`. */
  async writeStatus<K extends ResourceKind>(
    kind: K,
    object: ResourceOf<K>,
    status: ResourceOf<K>['status'] = object.status,
  ): Promise<ResourceOf<K>> {
    return (await this.api.replaceNamespacedCustomObjectStatus({
      ...this.coords(kind, object.metadata.namespace ?? ''),
      name: object.metadata.name ?? '',
      body: { ...object, status },
    })) as ResourceOf<K>;
  }

  /** Deletes the object; false when it was already gone. */
  async delete(kind: ResourceKind, namespace: string, name: string): Promise<boolean> {
    try {
      await this.api.deleteNamespacedCustomObject({ ...this.coords(kind, namespace), name });
      return true;
    } catch (err) {
      if (isKubeNotFound(err)) return false;
      throw err;
    }
  }
}
