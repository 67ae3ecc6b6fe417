/** Finds a deployment by id in any namespace (for the /internal/ routes, which carry no tenant). */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS, type AgentDeployment } from '../../../crds/src/index.js';
import { asUnavailable } from '../store/kube-errors.js';

/** Cluster-wide lookup of AgentDeployments by name. */
export class DeploymentLocator {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  /** The deployment named `id`, or null. */
  async find(id: string): Promise<AgentDeployment | null> {
    try {
      const list = (await this.api.listClusterCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: PLURALS.AgentDeployment,
        fieldSelector: `metadata.name=${id}`,
      })) as { items: AgentDeployment[] };
      return list.items[0] ?? null;
    } catch (err) {
      return asUnavailable(err);
    }
  }
}
