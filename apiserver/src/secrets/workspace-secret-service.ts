/**
 * The rules of a workspace's secrets: set (upsert), list and delete, over the
 * workspace's Kubernetes Secret `svc-ws-secrets-<workspace id>` (owned by the
 * Workspace, so deleting it deletes them) in the home region's API, with the
 * same key, size and plan rules as an agent's own. The workspace's agents run
 * in its regions, and each region's operator reads only its own API, so every
 * other region of the workspace holds a copy of that Secret (no owner there:
 * the Workspace lives in the home API; the workspace's delete removes the
 * copies). Every write stamps each region's new Secret revision on that
 * region's copy of every agent in the workspace (`svc.dev/secrets-revision`),
 * so the operators roll their services.
 */
import { LABELS, workspaceSecretsName, type Workspace } from '../../../crds/src/index.js';
import type { AgentRepository } from '../agents/agent-repository.js';
import type { AuthContext } from '../auth/authenticate.js';
import { SecretNotFound } from '../errors/catalogue.js';
import type { RegionApi } from '../regions/region-apis.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import {
  checkValueSize,
  SecretClients,
  stampSecretsRevision,
  upsertSecret,
  type SecretInput,
} from './secret-writes.js';
import type { SecretHolder, SecretSet, StoredSecret } from './secret-store.js';

/** The value of `svc.dev/component` on a workspace's secrets. */
export const WORKSPACE_SECRETS_COMPONENT = 'workspace-secrets';

/** A secret of a workspace, without its value. */
export interface WorkspaceSecret extends StoredSecret {
  workspaceName: string;
  userId: string;
}

/** The holder of a workspace's secrets; `owned` false for a copy in another region's API. */
export function workspaceSecretsHolder(workspace: Workspace, owned = true): SecretHolder {
  return {
    namespace: workspace.metadata.namespace ?? '',
    secretName: workspaceSecretsName(workspace.metadata.name ?? ''),
    owner: owned ? workspace : null,
    labels: { [LABELS.component]: WORKSPACE_SECRETS_COMPONENT },
  };
}

/** The workspace secret operations. */
export class WorkspaceSecretService {
  private readonly clients = new SecretClients();

  constructor(
    private readonly workspaces: Pick<WorkspaceService, 'resolve' | 'agents'>,
    private readonly agentCopies: Pick<AgentRepository, 'copies' | 'apis' | 'ensureNamespace'>,
  ) {}

  /** The workspace's secrets, by key; 404 WORKSPACE_NOT_FOUND for one the caller cannot see. */
  async list(auth: AuthContext, ref: string): Promise<WorkspaceSecret[]> {
    const workspace = await this.workspaces.resolve(auth, ref);
    const holder = workspaceSecretsHolder(workspace);
    const secrets = await this.home().store.list(holder.namespace, holder.secretName);
    return secrets.map((secret) => withWorkspace(secret, workspace));
  }

  /**
   * Sets a secret, creating it or replacing its value; `created` tells which.
   * 413 SECRET_VALUE_TOO_LARGE past the size caps, 400 PLAN_LIMIT_EXCEEDED
   * past the plan's number of secrets per workspace.
   */
  async put(
    auth: AuthContext,
    ref: string,
    input: SecretInput,
  ): Promise<{ secret: WorkspaceSecret; created: boolean }> {
    checkValueSize(input.value);
    const workspace = await this.workspaces.resolve(auth, ref);
    const result = await this.write(auth, workspace, (set) =>
      upsertSecret(set, input, auth.plan, 'workspace'),
    );
    return { secret: withWorkspace(result.secret, workspace), created: result.created };
  }

  /** Deletes a secret; 404 SECRET_NOT_FOUND when there is none. */
  async delete(auth: AuthContext, ref: string, key: string): Promise<void> {
    const workspace = await this.workspaces.resolve(auth, ref);
    await this.write(auth, workspace, (set) => {
      if (!set.get(key)) {
        throw new SecretNotFound(`The workspace has no secret ${key}.`, { fields: { key } });
      }
      set.remove(key);
    });
  }

  /**
   * Makes every region of the workspace other than home hold a copy of its
   * secrets (after its regions changed, or to repair a copy); the new
   * revision of each copy, by API.
   */
  async mirror(workspace: Workspace, set?: SecretSet): Promise<Map<RegionApi, string>> {
    const apis = this.agentCopies.apis;
    const revisions = new Map<RegionApi, string>();
    const holder = workspaceSecretsHolder(workspace);
    const source = set ?? (await this.home().store.load(holder.namespace, holder.secretName));
    for (const target of apis.targets(workspace.spec.regions)) {
      if (target.api === apis.homeApi) continue;
      await this.agentCopies.ensureNamespace(workspace.metadata.namespace ?? '', [target.region]);
      const copy = await this.clients
        .of(target.api.kc)
        .store.update(workspaceSecretsHolder(workspace, false), (copySet) =>
          copySet.copyFrom(source),
        );
      revisions.set(target.api, copy.revision);
    }
    return revisions;
  }

  /** Applies the change at home, copies it to the other regions, then stamps each region's revision on its agent copies. */
  private async write<T>(
    auth: AuthContext,
    workspace: Workspace,
    change: (set: SecretSet) => T,
  ): Promise<T> {
    const written = await this.home().store.update(workspaceSecretsHolder(workspace), change);
    const revisions = await this.mirror(workspace, written.set);
    revisions.set(this.agentCopies.apis.homeApi, written.revision);
    const members = await this.workspaces.agents(auth, workspace.spec.name);
    for (const agent of members) {
      const copies = await this.agentCopies.copies(
        agent.metadata.namespace ?? '',
        agent.metadata.name ?? '',
      );
      await Promise.all(
        copies.map((copy) =>
          stampSecretsRevision(
            this.clients.of(copy.api.kc).custom,
            copy.object,
            revisions.get(copy.api) ?? written.revision,
            'workspace',
            written.set.longKeys(),
          ),
        ),
      );
    }
    return written.result;
  }

  private home() {
    return this.clients.of(this.agentCopies.apis.homeApi.kc);
  }
}

function withWorkspace(secret: StoredSecret, workspace: Workspace): WorkspaceSecret {
  return { ...secret, workspaceName: workspace.spec.name, userId: workspace.spec.userId };
}
