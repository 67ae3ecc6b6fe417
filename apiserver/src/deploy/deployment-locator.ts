/** Finds a deployment by id in any namespace (for the /internal/ routes, which carry no tenant). */
import type { KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { AgentDeployment } from '../../../crds/src/index.js';
import { asUnavailable } from '../store/kube-errors.js';

/** Cluster-wide lookup of AgentDeployments by name. */
export class DeploymentLocator {
  private readonly client: CustomResourceClient;

  constructor(kc: KubeConfig) {
    this.client = new CustomResourceClient(kc);
  }

  /** The deployment named `id`, or null. */
  async find(id: string): Promise<AgentDeployment | null> {
    const items = await this.client
      .listEverywhere('AgentDeployment', { fieldSelector: `metadata.name=${id}` })
      .catch(asUnavailable);
    return items[0] ?? null;
  }
}
