/**
 * The rules of the workspace resource over `Workspace` custom resources in the
 * tenant's namespace: create, read, list, update and delete. A workspace's
 * agents are the agents whose `workspace_name` names it, counted whenever a
 * workspace is read. A workspace that still holds agents or collections is
 * not deleted (409 WORKSPACE_NOT_EMPTY names them), so nothing is orphaned.
 */
import { API_GROUP_VERSION, LABELS, type Agent, type Workspace } from '../../../crds/src/index.js';
import { isKubeConflict } from '../../../common/kube/errors.js';
import { keyAgentScope, type AuthContext } from '../auth/authenticate.js';
import { isUuid } from '../agents/names.js';
import type {
  WorkspaceCreateBody,
  WorkspaceUpdateBody,
} from '../control-plane/routes/workspaces/schema.js';
import {
  AgentKeyForbidden,
  WorkspaceNameImmutable,
  WorkspaceNameTaken,
  WorkspaceNotEmpty,
  WorkspaceNotFound,
} from '../errors/catalogue.js';
import type { WorkspaceCollections } from './workspace-collections.js';
import { workspaceId } from './workspace-ids.js';
import { resolveWorkspaceRegions } from './workspace-regions.js';
import type { WorkspaceRepository } from './workspace-repository.js';

/** What the service reads agents through. */
export interface AgentLister {
  list(namespace: string): Promise<Agent[]>;
}

/** What the service is built from. */
export interface WorkspaceServiceDeps {
  repository: WorkspaceRepository;
  agents: AgentLister;
  collections: WorkspaceCollections;
  /** Region names the registry offers; the first is the default. */
  regions: readonly string[];
}

/** A workspace with the number of agents in it at the time it was read. */
export interface CountedWorkspace {
  workspace: Workspace;
  agentCount: number;
}

/** The workspace operations. */
export class WorkspaceService {
  constructor(private readonly deps: WorkspaceServiceDeps) {}

  /** Creates a workspace; 409 WORKSPACE_NAME_TAKEN when the name is in use. */
  async create(auth: AuthContext, input: WorkspaceCreateBody): Promise<CountedWorkspace> {
    forbidAgentKey(auth);
    const regions = resolveWorkspaceRegions(
      input.regions ?? undefined,
      auth.account.homeRegion,
      this.deps.regions,
      auth.plan,
    );
    const { namespace } = auth.tenant;
    const workspace: Workspace = {
      apiVersion: API_GROUP_VERSION,
      kind: 'Workspace',
      metadata: {
        name: workspaceId(namespace, input.name),
        namespace,
        labels: { [LABELS.workspaceName]: input.name, [LABELS.accountId]: auth.account._id },
      },
      spec: {
        name: input.name,
        userId: auth.account._id,
        description: input.description ?? null,
        regions,
        updatedAt: new Date().toISOString(),
      },
    };
    try {
      const created = await this.deps.repository.create(workspace);
      return { workspace: created, agentCount: await this.countAgents(auth, input.name) };
    } catch (err) {
      if (!isKubeConflict(err)) throw err;
      throw new WorkspaceNameTaken(`A workspace named ${input.name} already exists.`, {
        fields: { workspace: input.name },
      });
    }
  }

  /**
   * The workspace named by `ref` (its name, or its id); 404
   * WORKSPACE_NOT_FOUND otherwise, also for another tenant's.
   */
  async resolve(auth: AuthContext, ref: string): Promise<Workspace> {
    forbidAgentKey(auth);
    const { namespace } = auth.tenant;
    const id = isUuid(ref) ? ref.toLowerCase() : workspaceId(namespace, ref);
    const workspace = await this.deps.repository.get(namespace, id);
    if (!workspace || workspace.metadata.deletionTimestamp) {
      throw new WorkspaceNotFound(`No workspace ${ref}.`, { fields: { workspace: ref } });
    }
    return workspace;
  }

  /** The workspace `ref` with its agent count. */
  async get(auth: AuthContext, ref: string): Promise<CountedWorkspace> {
    const workspace = await this.resolve(auth, ref);
    return { workspace, agentCount: await this.countAgents(auth, workspace.spec.name) };
  }

  /** Every workspace of the tenant, by name, each with its agent count. */
  async list(auth: AuthContext): Promise<CountedWorkspace[]> {
    forbidAgentKey(auth);
    const { namespace } = auth.tenant;
    const [workspaces, agents] = await Promise.all([
      this.deps.repository.list(namespace),
      this.deps.agents.list(namespace),
    ]);
    return workspaces
      .filter((w) => !w.metadata.deletionTimestamp)
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0))
      .map((workspace) => ({
        workspace,
        agentCount: membersOf(agents, workspace.spec.name).length,
      }));
  }

  /** Applies a WorkspaceUpdate; a different name is 400 WORKSPACE_NAME_IMMUTABLE. */
  async update(
    auth: AuthContext,
    ref: string,
    input: WorkspaceUpdateBody,
  ): Promise<CountedWorkspace> {
    const current = await this.resolve(auth, ref);
    if (input.name != null && input.name !== current.spec.name) {
      throw new WorkspaceNameImmutable(
        `The workspace ${current.spec.name} cannot be renamed to ${input.name}.`,
        { fields: { workspace: current.spec.name } },
      );
    }
    const updated = await this.deps.repository.update(
      auth.tenant.namespace,
      current.metadata.name ?? '',
      (w) => {
        if (input.description !== undefined) w.spec.description = input.description;
      },
    );
    if (!updated)
      throw new WorkspaceNotFound(`No workspace ${ref}.`, { fields: { workspace: ref } });
    return { workspace: updated, agentCount: await this.countAgents(auth, updated.spec.name) };
  }

  /**
   * Deletes an empty workspace and its secrets; 409 WORKSPACE_NOT_EMPTY,
   * deleting nothing, while agents or collections are in it.
   */
  async delete(auth: AuthContext, ref: string): Promise<{ secretsDeleted: number }> {
    const workspace = await this.resolve(auth, ref);
    const { name } = workspace.spec;
    const [agents, collections] = await Promise.all([
      this.members(auth, name),
      this.deps.collections.namesIn(auth.tenant, name),
    ]);
    if (agents.length > 0 || collections.length > 0) {
      throw new WorkspaceNotEmpty(
        `The workspace ${name} still holds ${agents.length} agent(s) and ${collections.length} collection(s); move or delete them first.`,
        {
          fields: {
            workspace: name,
            dependents: {
              agents: agents.map((a) => ({ id: a.metadata.name, name: a.spec.name })),
              collections,
            },
          },
        },
      );
    }
    const id = workspace.metadata.name ?? '';
    const { namespace } = auth.tenant;
    // The Secret first: it is owned by the Workspace, so once that is gone the garbage
    // collector may delete it before it is counted.
    const secretsDeleted = await this.deps.repository.deleteSecrets(namespace, id);
    if (!(await this.deps.repository.delete(namespace, id))) {
      throw new WorkspaceNotFound(`No workspace ${ref}.`, { fields: { workspace: ref } });
    }
    return { secretsDeleted };
  }

  /** The agents in the workspace `ref`, by name. */
  async agents(auth: AuthContext, ref: string): Promise<Agent[]> {
    const workspace = await this.resolve(auth, ref);
    return this.members(auth, workspace.spec.name);
  }

  private async members(auth: AuthContext, name: string): Promise<Agent[]> {
    return membersOf(await this.deps.agents.list(auth.tenant.namespace), name);
  }

  private async countAgents(auth: AuthContext, name: string): Promise<number> {
    return (await this.members(auth, name)).length;
  }
}

/** The agents of `agents` in the workspace `name` (not being deleted), by name. */
function membersOf(agents: readonly Agent[], name: string): Agent[] {
  return agents
    .filter((a) => !a.metadata.deletionTimestamp && a.spec.workspaceName === name)
    .sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
}

/** Workspaces belong to the account: an agent's own key (SVC_API_KEY) is refused. */
function forbidAgentKey(auth: AuthContext): void {
  if (keyAgentScope(auth)) {
    throw new AgentKeyForbidden("An agent's own key cannot manage workspaces; use an account key.");
  }
}
