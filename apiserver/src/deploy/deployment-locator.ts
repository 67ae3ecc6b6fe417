/**
 * Finds a deployment by id in any namespace and any region's API (for the
 * /internal/ routes, which carry no tenant: a region's operator fetching the
 * archive of a deployment placed there).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { AgentDeployment } from '../../../crds/src/index.js';
import { RegionApis } from '../regions/region-apis.js';
import { asUnavailable } from '../store/kube-errors.js';

/** Cluster-wide lookup of AgentDeployments by name, across the regions' APIs. */
export class DeploymentLocator {
  private readonly clients: CustomResourceClient[];

  /** Over the regions' APIs; a bare KubeConfig is one API. */
  constructor(apis: RegionApis | KubeConfig) {
    const all = apis instanceof KubeConfig ? RegionApis.shared(['local'], apis) : apis;
    this.clients = all.apis.map((api) => new CustomResourceClient(api.kc));
  }

  /** The deployment named `id` (its first copy in region order), or null. */
  async find(id: string): Promise<AgentDeployment | null> {
    const found = await Promise.all(
      this.clients.map((client) =>
        client
          .listEverywhere('AgentDeployment', { fieldSelector: `metadata.name=${id}` })
          .catch(asUnavailable),
      ),
    );
    return found.flat()[0] ?? null;
  }
}
