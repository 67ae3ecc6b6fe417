/**
 * The one typed client of the platform's custom resources (Agent, AgentDeployment,
 * Workspace), for the API server and the operator alike. NotFound reads as `null`
 * (or an empty list, or `false` on delete); every other failure is thrown as the
 * client raised it, for the caller to classify (`errors.ts`): the API server turns
 * an unreachable API into 503, the operator's work queue retries with backoff.
 * Writes replace the object at the resourceVersion it carries, so a stale write is
 * a 409 conflict, never a lost update.
 */
import type { KubeConfig } from '@kubernetes/client-node';
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
import { KubeJson } from './kube-json.js';

export type { ResourceKind };

/**
 * The query of every write: the objects are this code's own, built to the CRDs' schemas, so
 * kube-apiserver need not decode each one a second time, strictly, to warn about unknown or
 * duplicate fields (its default, `Warn`, whose warnings nothing here reads). Unknown fields are
 * still pruned by the schema, as before.
 */
const UNCHECKED_FIELDS = '?fieldValidation=Ignore';

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

/** Typed reads and writes of the platform's custom resources (requests through KubeJson). */
export class CustomResourceClient {
  private readonly api: KubeJson;

  constructor(kc: KubeConfig) {
    this.api = new KubeJson(kc);
  }

  /** The path of the kind's objects in `namespace` (of one object with `name`). */
  private path(kind: ResourceKind, namespace: string, name?: string, query = ''): string {
    const base = `/apis/${API_GROUP}/${API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${PLURALS[kind]}`;
    return `${base}${name === undefined ? '' : `/${encodeURIComponent(name)}`}${query}`;
  }

  /** The object, or null when it does not exist. */
  async get<K extends ResourceKind>(
    kind: K,
    namespace: string,
    name: string,
  ): Promise<ResourceOf<K> | null> {
    try {
      return await this.api.request<ResourceOf<K>>('GET', this.path(kind, namespace, name));
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
      const list = await this.api.request<{ items: ResourceOf<K>[] }>(
        'GET',
        this.path(kind, namespace, undefined, selectors(options)),
      );
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
    const list = await this.api.request<{ items: ResourceOf<K>[] }>(
      'GET',
      `/apis/${API_GROUP}/${API_VERSION}/${PLURALS[kind]}${selectors(options)}`,
    );
    return list.items;
  }

  /** Creates the object in its namespace. */
  async create<K extends ResourceKind>(kind: K, object: ResourceOf<K>): Promise<ResourceOf<K>> {
    return this.api.request<ResourceOf<K>>(
      'POST',
      this.path(kind, object.metadata.namespace ?? '', undefined, UNCHECKED_FIELDS),
      object,
    );
  }

  /** Replaces the spec and metadata of `object` (as read, with its resourceVersion). */
  async write<K extends ResourceKind>(kind: K, object: ResourceOf<K>): Promise<ResourceOf<K>> {
    return this.api.request<ResourceOf<K>>(
      'PUT',
      this.path(
        kind,
        object.metadata.namespace ?? '',
        object.metadata.name ?? '',
        UNCHECKED_FIELDS,
      ),
      object,
    );
  }

  /** Replaces the status of `object` (as read, with its resourceVersion) by `status`. */
  async writeStatus<K extends ResourceKind>(
    kind: K,
    object: ResourceOf<K>,
    status: ResourceOf<K>['status'] = object.status,
  ): Promise<ResourceOf<K>> {
    return this.api.request<ResourceOf<K>>(
      'PUT',
      `${this.path(kind, object.metadata.namespace ?? '', object.metadata.name ?? '')}/status${UNCHECKED_FIELDS}`,
      { ...object, status },
    );
  }

  /** Deletes the object; false when it was already gone. */
  async delete(kind: ResourceKind, namespace: string, name: string): Promise<boolean> {
    try {
      await this.api.request('DELETE', this.path(kind, namespace, name));
      return true;
    } catch (err) {
      if (isKubeNotFound(err)) return false;
      throw err;
    }
  }
}

/** The query string of a list's selectors ('' for none). */
function selectors(options: ListOptions): string {
  const query = new URLSearchParams();
  if (options.labelSelector) query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
  const text = query.toString();
  return text ? `?${text}` : '';
}
