/**
 * `Agent` custom resources in a tenant's namespace: the API server's only
 * window on agent state in Kubernetes. Namespaces are created on first use.
 * Updates replace the object at the resourceVersion read, retrying a few times
 * on a conflict before giving up with 503 RESOURCE_BUSY.
 */
import { CoreV1Api, CustomObjectsApi, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, LABELS, PLURALS, type Agent } from '../../../crds/src/index.js';
import { ResourceBusy } from '../errors/catalogue.js';
import { asUnavailable, isKubeConflict, isKubeNotFound } from '../store/kube-errors.js';

const UPDATE_ATTEMPTS = 4;

/** CRUD of Agent resources. */
export class AgentRepository {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly knownNamespaces = new Set<string>();

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  private coords(namespace: string) {
    return { group: API_GROUP, version: API_VERSION, namespace, plural: PLURALS.Agent };
  }

  /** Creates the namespace unless it is known to exist. */
  async ensureNamespace(namespace: string): Promise<void> {
    if (this.knownNamespaces.has(namespace)) return;
    try {
      await this.core.createNamespace({
        body: { metadata: { name: namespace, labels: { 'app.kubernetes.io/part-of': 'svc' } } },
      });
    } catch (err) {
      if (!isKubeConflict(err)) asUnavailable(err);
    }
    this.knownNamespaces.add(namespace);
  }

  /** Creates an Agent. */
  async create(agent: Agent): Promise<Agent> {
    const namespace = agent.metadata.namespace ?? '';
    await this.ensureNamespace(namespace);
    try {
      return (await this.custom.createNamespacedCustomObject({
        ...this.coords(namespace),
        body: agent,
      })) as Agent;
    } catch (err) {
      return asUnavailable(err);
    }
  }

  /** The Agent, or null when there is none of that id in the namespace. */
  async get(namespace: string, id: string): Promise<Agent | null> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        ...this.coords(namespace),
        name: id,
      })) as Agent;
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      return asUnavailable(err);
    }
  }

  /** Every Agent of the namespace (none when it does not exist yet). */
  async list(namespace: string): Promise<Agent[]> {
    try {
      const list = (await this.custom.listNamespacedCustomObject(this.coords(namespace))) as {
        items: Agent[];
      };
      return list.items;
    } catch (err) {
      if (isKubeNotFound(err)) return [];
      return asUnavailable(err);
    }
  }

  /**
   * Applies `change` to the current object and replaces it, re-reading and
   * retrying on a conflict. Resolves null when the agent is gone.
   */
  async update(
    namespace: string,
    id: string,
    change: (agent: Agent) => void,
  ): Promise<Agent | null> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const current = await this.get(namespace, id);
      if (!current) return null;
      await change(current);
      current.spec.updatedAt = new Date().toISOString();
      if (current.metadata.labels) current.metadata.labels[LABELS.agentName] = current.spec.name;
      try {
        return (await this.custom.replaceNamespacedCustomObject({
          ...this.coords(namespace),
          name: id,
          body: current,
        })) as Agent;
      } catch (err) {
        if (isKubeNotFound(err)) return null;
        if (!isKubeConflict(err)) asUnavailable(err);
      }
    }
    throw new ResourceBusy(
      'The agent is being changed by another request; retry in a few seconds.',
    );
  }

  /** Deletes the Agent; resolves false when it was already gone. */
  async delete(namespace: string, id: string): Promise<boolean> {
    try {
      await this.custom.deleteNamespacedCustomObject({ ...this.coords(namespace), name: id });
      return true;
    } catch (err) {
      if (isKubeNotFound(err)) return false;
      return asUnavailable(err);
    }
  }

  /** The pods serving the agent, read live. Errors propagate (the caller falls back to cached state). */
  async listPods(namespace: string, agentId: string): Promise<V1Pod[]> {
    const list = await this.core.listNamespacedPod({
      namespace,
      labelSelector: `${LABELS.agentId}=${agentId}`,
    });
    return list.items;
  }
}
