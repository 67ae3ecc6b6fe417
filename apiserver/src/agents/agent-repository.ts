/**
 * `Agent` custom resources in a tenant's namespace, the API server's window on
 * agent state in Kubernetes, plus the namespace itself (created on first use,
 * in each region the account uses) and the pods that serve an agent. An agent
 * has a copy in each region of its placement (store/regional-resources.ts).
 */
import { cachesOf } from '../store/region-caches.js';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LABELS, type Agent } from '../../../crds/src/index.js';
import { RegionalRepository } from '../store/regional-resources.js';
import { isKubeConflict } from '../../../common/kube/errors.js';
import { asUnavailable } from '../store/kube-errors.js';
import { placementOf } from '../regions/placement.js';
import { RegionApis, type RegionApi } from '../regions/region-apis.js';

/** Labels of an account namespace. */
export const TENANT_NAMESPACE_LABELS = {
  'app.kubernetes.io/part-of': 'svc',
  'pod-security.kubernetes.io/enforce': 'baseline',
  'pod-security.kubernetes.io/warn': 'restricted',
  'pod-security.kubernetes.io/audit': 'restricted',
};

/** A pod serving an agent, with the region whose API it was read from. */
export interface RegionPod {
  region: string;
  pod: V1Pod;
}

/** CRUD of Agent resources. */
export class AgentRepository extends RegionalRepository<'Agent'> {
  private readonly knownNamespaces = new Set<string>();

  /** Over the regions' APIs; a bare KubeConfig is one region, `local`, on it. */
  constructor(apis: RegionApis | KubeConfig) {
    super(apis instanceof KubeConfig ? RegionApis.shared(['local'], apis) : apis, 'Agent', 'agent');
  }

  /**
   * Creates the namespace unless it is known to exist. Pod Security admission
   * enforces "baseline" there and warns on "restricted": every pod the
   * operator starts meets baseline, those of standard runtimes restricted
   * (the two exceptions are in operator/src/drivers/kubernetes/security.ts).
   */
  async ensureNamespace(namespace: string, regions: readonly string[] = []): Promise<void> {
    await Promise.all(
      this.apis.targets(regions).map((t) => this.ensureNamespaceIn(t.api, namespace)),
    );
  }

  private async ensureNamespaceIn(api: RegionApi, namespace: string): Promise<void> {
    const known = `${api.regions[0]}/${namespace}`;
    if (this.knownNamespaces.has(known)) return;
    try {
      await api.kc.makeApiClient(CoreV1Api).createNamespace({
        body: { metadata: { name: namespace, labels: TENANT_NAMESPACE_LABELS } },
      });
    } catch (err) {
      if (!isKubeConflict(err)) asUnavailable(err);
    }
    this.knownNamespaces.add(known);
  }

  /**
   * The id of the agent named `name` in `namespace` as the caches see it (by
   * its name label); undefined when a cache cannot say (not filled, a write of
   * ours not seen yet) or finds none, and the caller asks the name registry.
   */
  idFromCache(namespace: string, name: string): string | undefined {
    const ids = new Set<string>();
    for (const api of this.apis.apis) {
      const found = cachesOf(api)?.of('Agent')?.listByLabel(namespace, LABELS.agentName, name);
      if (!found) return undefined;
      for (const agent of found) {
        if (agent.spec.name === name && agent.metadata?.name) ids.add(agent.metadata.name);
      }
    }
    return ids.size === 1 ? [...ids][0] : undefined;
  }

  /** Creates an Agent in each region of its placement, and its namespace there when needed. */
  override async create(agent: Agent): Promise<Agent> {
    await this.ensureNamespace(agent.metadata.namespace ?? '', placementOf(agent, []));
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

  /**
   * The pods serving the agent in each region of `regions` (home when empty),
   * read live, each with the region it runs in. Errors propagate (the caller
   * falls back to cached state).
   */
  async listPods(
    namespace: string,
    agentId: string,
    regions: readonly string[] = [],
  ): Promise<RegionPod[]> {
    const lists = await Promise.all(
      this.apis.targets(regions).map(async ({ api }) => {
        const list = await api.kc.makeApiClient(CoreV1Api).listNamespacedPod({
          namespace,
          labelSelector: `${LABELS.agentId}=${agentId}`,
        });
        return list.items.map((pod) => ({
          region: this.apis.regionOf(api, pod.metadata?.labels?.[LABELS.region]),
          pod,
        }));
      }),
    );
    return lists.flat();
  }
}
