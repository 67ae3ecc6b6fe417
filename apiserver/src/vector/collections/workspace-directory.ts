/**
 * Whether a workspace a workspace-scoped vector route names exists: a
 * `Workspace` resource labelled with that name in the tenant's namespace
 * (Workspaces are named by UUID; the name is a label). A route naming a
 * workspace that does not exist answers 404 NOT_FOUND and touches nothing.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, LABELS, PLURALS } from '../../../../crds/src/index.js';
import { tenantNamespace, type Environment } from '../../accounts/model.js';
import { ServiceUnavailable, VectorNotFound } from '../../errors/catalogue.js';
import { TtlCache } from '../../../../common/ttl-cache.js';

/**
 * How long a workspace found is taken to exist. A deleted workspace's
 * collections stay reachable for at most this long; one just created is
 * found at once, since absences are never cached.
 */
const FOUND_TTL_MS = 30_000;

/** Answers whether a tenant's workspace exists. */
export interface WorkspaceDirectory {
  /** Resolves when it exists; 404 NOT_FOUND when it does not. */
  assertExists(accountId: string, environment: Environment, workspace: string): Promise<void>;
}

/** The directory read from the Kubernetes API. */
export class KubernetesWorkspaceDirectory implements WorkspaceDirectory {
  private readonly api: CustomObjectsApi;
  private readonly found = new TtlCache<true>(FOUND_TTL_MS);

  constructor(kc: KubeConfig) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  async assertExists(
    accountId: string,
    environment: Environment,
    workspace: string,
  ): Promise<void> {
    const namespace = tenantNamespace(accountId, environment);
    const key = `${namespace}/${workspace}`;
    if (this.found.get(key)) return;
    let items: unknown[];
    try {
      const list = (await this.api.listNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace,
        plural: PLURALS.Workspace,
        labelSelector: `${LABELS.workspaceName}=${workspace}`,
        limit: 1,
      })) as { items?: unknown[] };
      items = list.items ?? [];
    } catch (cause) {
      throw new ServiceUnavailable('Workspaces cannot be read right now; retry in a few seconds.', {
        cause,
      });
    }
    if (items.length === 0) {
      throw new VectorNotFound(`Workspace ${workspace} not found.`, {
        fields: { workspace },
      });
    }
    this.found.set(key, true);
  }
}
