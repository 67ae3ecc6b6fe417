/**
 * Reads and status writes of the platform's custom resources, for the
 * reconcilers. Writes carry the resourceVersion that was read: a conflict
 * throws, and the work queue retries with a fresh read.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  PLURALS,
  type Agent,
  type AgentDeployment,
  type Workspace,
} from '../../crds/src/index.js';

type Kind = keyof typeof PLURALS;
type ObjectOf<K extends Kind> = K extends 'Agent'
  ? Agent
  : K extends 'AgentDeployment'
    ? AgentDeployment
    : Workspace;

/** Typed access to Agent, AgentDeployment and Workspace resources. */
export class Resources {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  private coords(kind: Kind, namespace: string) {
    return { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS[kind] };
  }

  /** The object, or null when it does not exist. */
  async get<K extends Kind>(kind: K, namespace: string, name: string): Promise<ObjectOf<K> | null> {
    try {
      return (await this.api.getNamespacedCustomObject({
        ...this.coords(kind, namespace),
        name,
      })) as ObjectOf<K>;
    } catch (err) {
      if ((err as { code?: number }).code === 404) return null;
      throw err;
    }
  }

  /** Replaces the status of `object` (as read, with its resourceVersion) by `status`. */
  async writeStatus<K extends Kind>(
    kind: K,
    object: ObjectOf<K>,
    status: ObjectOf<K>['status'],
  ): Promise<ObjectOf<K>> {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name ?? '';
    return (await this.api.replaceNamespacedCustomObjectStatus({
      ...this.coords(kind, namespace),
      name,
      body: { ...object, status },
    })) as ObjectOf<K>;
  }

  /** Replaces the spec and metadata of `object` (as read, with its resourceVersion). */
  async write<K extends Kind>(kind: K, object: ObjectOf<K>): Promise<ObjectOf<K>> {
    return (await this.api.replaceNamespacedCustomObject({
      ...this.coords(kind, object.metadata.namespace ?? ''),
      name: object.metadata.name ?? '',
      body: object,
    })) as ObjectOf<K>;
  }
}
