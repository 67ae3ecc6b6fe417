/**
 * The phases of a region change (operation-runner.ts runs them), for a
 * workspace (its agents, then its collections) and for one collection.
 *
 * A workspace takes its new regions when the change starts, so an agent
 * created meanwhile is placed there at once; the agents it already had get a
 * copy in each added region (agent-mover.ts), and the change waits until each
 * added region's operator serves them. Collections are copied next
 * (collection-mover.ts). Only then are the copies in removed regions drained:
 * until that point a failure removes what was added, the workspace gets its
 * old regions back, and the old placement, never touched, keeps serving.
 */
import { tenantNamespace } from '../accounts/model.js';
import type { Agent, Workspace } from '../../../crds/src/index.js';
import type { WorkspaceRepository } from '../workspaces/workspace-repository.js';
import type { AgentMover } from './agent-mover.js';
import {
  OperationFailure,
  regionDelta,
  type AgentProgress,
  type RegionOperationDoc,
} from './model.js';
import type { RegionChangeSteps, RunContext } from './operation-runner.js';

/** Where the agents of a namespace are read from. */
export interface AgentLister {
  list(namespace: string): Promise<Agent[]>;
}

/** Copies a workspace's secrets into each region of the workspace other than home. */
export interface WorkspaceSecretMirror {
  mirror(workspace: Workspace): Promise<unknown>;
}

/** Moves collections' points between regions' engines (collection-mover.ts). */
export interface CollectionSteps {
  copy(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
  drain(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
  rollBack(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
}

/** Timings of the steps. */
export interface StepOptions {
  /** How long the added regions get to serve an agent before the change rolls back (default 15 min). */
  readyTimeoutMs?: number;
  /** How often readiness is checked (default 1 s). */
  pollMs?: number;
}

/** Agent states that need no more work in a forward phase. */
const SETTLED = new Set(['done', 'gone']);

/** The steps of workspace and collection region changes. */
export class RegionChangeRunSteps implements RegionChangeSteps {
  constructor(
    private readonly deps: {
      mover: AgentMover;
      agents: AgentLister;
      workspaces: WorkspaceRepository;
      workspaceSecrets: WorkspaceSecretMirror;
      collections?: CollectionSteps;
    },
    private readonly options: StepOptions = {},
  ) {}

  async place(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    if (op.scope !== 'workspace') return;
    const workspace = await this.setWorkspaceRegions(op, op.toRegions);
    if (!workspace) throw new OperationFailure(`The workspace ${op.workspaceName} was deleted.`);
    // Before any agent: a copy of the agent reads its workspace's secrets in its own region.
    await this.deps.workspaceSecrets.mirror(workspace);
    const agents = await this.withMembers(op);
    await this.placeAll(op, agents, ctx);
  }

  async copy(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    await this.deps.collections?.copy(op, ctx);
  }

  async drain(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    const namespace = namespaceOf(op);
    if (op.scope === 'workspace') {
      const workspace = await this.setWorkspaceRegions(op, op.toRegions);
      if (workspace) await this.deps.workspaceSecrets.mirror(workspace);
      // An agent that joined after the agents were placed is placed now, before anything drains.
      const agents = await this.withMembers(op);
      await this.placeAll(op, agents, ctx);
      for (const agent of agents) {
        if (agent.state === 'gone' || agent.state === 'done') continue;
        await this.deps.mover.drain(namespace, agent.agentId, op.toRegions);
        agent.state = 'done';
        agent.readyRegions = [...op.toRegions];
        await ctx.save({ agents });
      }
      await this.deps.workspaces.dropSecretCopies(namespace, op.workspaceId ?? '', op.toRegions);
    }
    await this.deps.collections?.drain(op, ctx);
  }

  async rollBack(op: RegionOperationDoc, ctx: RunContext): Promise<void> {
    const namespace = namespaceOf(op);
    await this.deps.collections?.rollBack(op, ctx);
    if (op.scope !== 'workspace') return;
    const workspace = await this.setWorkspaceRegions(op, op.fromRegions);
    if (workspace) await this.deps.workspaceSecrets.mirror(workspace);
    const agents = await this.withMembers(op);
    for (const agent of agents) {
      if (agent.state === 'gone' || agent.state === 'rolled_back') continue;
      // Normally a no-op: the old copies were never touched. An agent created during the
      // change, in the new regions only, gets copies where the workspace is again.
      if (await this.deps.mover.place(namespace, agent.agentId, op.fromRegions)) {
        await this.deps.mover.drain(namespace, agent.agentId, op.fromRegions);
      }
      agent.state = 'rolled_back';
      agent.readyRegions = [...op.fromRegions];
      await ctx.save({ agents });
    }
    if (workspace) {
      await this.deps.workspaces.dropSecretCopies(namespace, op.workspaceId ?? '', op.fromRegions);
    }
  }

  /**
   * Gives every agent not yet settled a copy in each added region, then waits
   * until each is served there; {@link OperationFailure} when one failed there
   * or was not ready in time.
   */
  private async placeAll(op: RegionOperationDoc, agents: AgentProgress[], ctx: RunContext) {
    const namespace = namespaceOf(op);
    const { regionsToAdd } = regionDelta(op.fromRegions, op.toRegions);
    const kept = op.fromRegions.filter((r) => op.toRegions.includes(r));
    const open = () => agents.filter((a) => !SETTLED.has(a.state));
    for (const agent of open()) {
      const placed = await this.deps.mover.place(namespace, agent.agentId, op.toRegions);
      if (!placed) agent.state = 'gone';
      else if (agent.state === 'pending') agent.state = 'placing';
    }
    await ctx.save({ agents });
    const timeoutMs = this.options.readyTimeoutMs ?? 15 * 60_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const waiting: string[] = [];
      for (const agent of open()) {
        const readiness = await this.deps.mover.readiness(
          namespace,
          agent.agentId,
          op.fromRegions,
          regionsToAdd,
        );
        agent.readyRegions = [...kept, ...readiness.ready];
        agent.state = readiness.waiting.length === 0 ? 'ready' : 'placing';
        if (readiness.waiting.length > 0) waiting.push(`${agent.name} in ${readiness.waiting}`);
      }
      await ctx.save({ agents });
      if (waiting.length === 0) return;
      if (Date.now() > deadline) {
        throw new OperationFailure(
          `Not ready within ${Math.round(timeoutMs / 1000)} s: ${waiting.join('; ')}.`,
        );
      }
      await ctx.sleep(this.options.pollMs ?? 1_000);
    }
  }

  /** The operation's agents, with the workspace's current members added (state pending). */
  private async withMembers(op: RegionOperationDoc): Promise<AgentProgress[]> {
    const agents = op.agents.map((a) => ({ ...a }));
    const all = await this.deps.agents.list(namespaceOf(op));
    for (const member of all) {
      const id = member.metadata.name ?? '';
      if (member.metadata.deletionTimestamp || member.spec.workspaceName !== op.workspaceName) {
        continue;
      }
      if (agents.some((a) => a.agentId === id)) continue;
      agents.push({ agentId: id, name: member.spec.name, state: 'pending', readyRegions: [] });
    }
    op.agents = agents;
    return agents;
  }

  /** Gives the workspace `regions`; null when it no longer exists. */
  private async setWorkspaceRegions(
    op: RegionOperationDoc,
    regions: string[],
  ): Promise<Workspace | null> {
    if (!op.workspaceId) return null;
    const namespace = namespaceOf(op);
    const current = await this.deps.workspaces.get(namespace, op.workspaceId);
    if (!current || current.spec.regions.join(',') === regions.join(',')) return current;
    return this.deps.workspaces.update(namespace, op.workspaceId, (w) => {
      w.spec.regions = [...regions];
    });
  }
}

function namespaceOf(op: RegionOperationDoc): string {
  return tenantNamespace(op.accountId, op.environment);
}
