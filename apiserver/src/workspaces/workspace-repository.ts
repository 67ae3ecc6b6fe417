/**
 * `Workspace` custom resources in a tenant's namespace (the state the operator
 * acts on), and the Kubernetes Secret holding each workspace's secrets.
 */
import { cachesOf } from '../store/region-caches.js';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { workspaceSecretsName, type Workspace } from '../../../crds/src/index.js';
import { isKubeNotFound } from '../../../common/kube/errors.js';
import { CustomResourceRepository } from '../store/custom-resources.js';
import { asUnavailable } from '../store/kube-errors.js';
import type { RegionApis } from '../regions/region-apis.js';

/**
 * Creates a tenant namespace on first use (the agent repository does), in the
 * given regions (home when none), and knows the regions' APIs.
 */
export interface NamespaceMaker {
  ensureNamespace(namespace: string, regions?: readonly string[]): Promise<void>;
  readonly apis: RegionApis;
}

/** CRUD of Workspace resources. */
export class WorkspaceRepository extends CustomResourceRepository<'Workspace'> {
  private readonly core: CoreV1Api;

  constructor(
    kc: KubeConfig,
    private readonly namespaces: NamespaceMaker,
  ) {
    super(kc, 'Workspace', 'workspace', cachesOf(namespaces.apis.homeApi)?.of('Workspace'));
    this.core = kc.makeApiClient(CoreV1Api);
  }

  /**
   * Creates a Workspace (in the home region's API, the account's record), and
   * the namespace when needed, there and in each region of the workspace.
   */
  override async create(workspace: Workspace): Promise<Workspace> {
    const namespace = workspace.metadata.namespace ?? '';
    await this.namespaces.ensureNamespace(namespace);
    await this.namespaces.ensureNamespace(namespace, workspace.spec.regions);
    return super.create(workspace);
  }

  /** Applies `change` and stamps `updatedAt`; see CustomResourceRepository.update. */
  override async update(
    namespace: string,
    id: string,
    change: (workspace: Workspace) => void | Promise<void>,
  ): Promise<Workspace | null> {
    return super.update(namespace, id, async (workspace) => {
      await change(workspace);
      workspace.spec.updatedAt = new Date().toISOString();
    });
  }

  /**
   * Deletes the workspace's secrets: the Secret at home and its copies in the
   * other regions' APIs; how many keys it held (0 when it had none).
   */
  async deleteSecrets(namespace: string, workspaceId: string): Promise<number> {
    const name = workspaceSecretsName(workspaceId);
    for (const api of this.namespaces.apis.apis) {
      if (api === this.namespaces.apis.homeApi) continue;
      await deleteSecret(api.kc.makeApiClient(CoreV1Api), namespace, name);
    }
    return (await deleteSecret(this.core, namespace, name))?.keys ?? 0;
  }

  /**
   * Deletes the copies of the workspace's secrets in the APIs of regions other
   * than home that none of `keep` is served by (the workspace left them).
   */
  async dropSecretCopies(
    namespace: string,
    workspaceId: string,
    keep: readonly string[],
  ): Promise<void> {
    const { apis } = this.namespaces;
    const kept = new Set(apis.targets(keep).map((t) => t.api));
    for (const api of apis.apis) {
      if (api === apis.homeApi || kept.has(api)) continue;
      await deleteSecret(
        api.kc.makeApiClient(CoreV1Api),
        namespace,
        workspaceSecretsName(workspaceId),
      );
    }
  }
}

/** Deletes a Secret; how many keys it held, or null when there was none. */
async function deleteSecret(
  core: CoreV1Api,
  namespace: string,
  name: string,
): Promise<{ keys: number } | null> {
  try {
    const secret = await core.readNamespacedSecret({ namespace, name });
    await core.deleteNamespacedSecret({ namespace, name });
    return { keys: Object.keys(secret.data ?? {}).length };
  } catch (err) {
    if (isKubeNotFound(err)) return null;
    return asUnavailable(err);
  }
}
