/**
 * `Agent` custom resources in a tenant's namespace, the API server's window on
 * agent state in Kubernetes, plus the namespace itself (created on first use)
 * and the pods that serve an agent.
 */
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LABELS, type Agent } from '../../../crds/src/index.js';
import { CustomResourceRepository } from '../store/custom-resources.js';
import { isKubeConflict } from '../../../common/kube/errors.js';
import { asUnavailable } from '../store/kube-errors.js';

/** Labels of an account namespace. */
export const TENANT_NAMESPACE_LABELS = {
  'app.kubernetes.io/part-of': 'svc',
  'pod-security.kubernetes.io/enforce': 'baseline',
  'pod-security.kubernetes.io/warn': 'restricted',
  'pod-security.kubernetes.io/audit': 'restricted',
};

/** CRUD of Agent resources. */
export class AgentRepository extends CustomResourceRepository<'Agent'> {
  private readonly core: CoreV1Api;
  private readonly knownNamespaces = new Set<string>();

  constructor(kc: KubeConfig) {
    super(kc, 'Agent', 'agent');
    this.core = kc.makeApiClient(CoreV1Api);
  }

  /**
   * Creates the namespace unless it is known to exist. Pod Security admission
   * enforces "baseline" there and warns on "restricted": every pod the
   * operator starts meets baseline, those of standard runtimes restricted
   * (the two exceptions are in operator/src/drivers/kubernetes/security.ts).
   */
  async ensureNamespace(namespace: string): Promise<void> {
    if (this.knownNamespaces.has(namespace)) return;
    try {
      await this.core.createNamespace({
        body: { metadata: { name: namespace, labels: TENANT_NAMESPACE_LABELS } },
      });
    } catch (err) {
      if (!isKubeConflict(err)) asUnavailable(err);
    }
    this.knownNamespaces.add(namespace);
  }

  /** Creates an Agent, and its namespace when needed. */
  override async create(agent: Agent): Promise<Agent> {
    await this.ensureNamespace(agent.metadata.namespace ?? '');
    return super.create(agent);
  }

  /** Applies `change` and stamps `updatedAt` and the name label; see CustomResourceRepository.update. */
  override async update(
    namespace: string,
    id: string,
    change: (agent: Agent) => void | Promise<void>,
  ): Promise<Agent | null> {
    return super.update(namespace, id, async (agent) => {
      await change(agent);
      agent.spec.updatedAt = new Date().toISOString();
      agent.metadata.labels = { ...agent.metadata.labels, [LABELS.agentName]: agent.spec.name };
    });
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
