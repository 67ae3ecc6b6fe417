/**
 * `PATCH /api/v1/workspaces/{workspace}/regions`: the desired final set of a
 * workspace's regions, compared with the current one as a set. An unchanged
 * set is a no-op that records nothing. A changed set is checked against the
 * region registry, the plan's region cap and its region changes per 30 days,
 * then recorded as a region-change operation that the runner
 * (operations/operation-runner.ts) carries out: 202 with its id.
 */
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../auth/authenticate.js';
import { PlanLimitExceeded } from '../errors/catalogue.js';
import { regionDelta, type RegionOperationDoc } from '../operations/model.js';
import { lockKey, type OperationStore } from '../operations/operation-store.js';
import type { WorkspaceCollections } from './workspace-collections.js';
import { resolveWorkspaceRegions, sameRegions } from './workspace-regions.js';
import type { WorkspaceService } from './workspace-service.js';

/** RegionChangeNoOp. */
export interface RegionChangeNoOp {
  status: 'no_op';
  scope: 'workspace' | 'collection';
  current_regions: string[];
  workspace_name?: string;
}

/** RegionChangeAccepted. */
export interface RegionChangeAccepted {
  operation_id: string;
  status: 'pending';
  scope: 'workspace' | 'collection';
  workspace_name: string | null;
  from_regions: string[];
  to_regions: string[];
  regions_to_add: string[];
  regions_to_remove: string[];
}

/** The window the plan's region-change count is counted over. */
export const REGION_CHANGE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** The RegionChangeAccepted record of a recorded operation. */
export function accepted(op: RegionOperationDoc): RegionChangeAccepted {
  const { regionsToAdd, regionsToRemove } = regionDelta(op.fromRegions, op.toRegions);
  return {
    operation_id: op._id,
    status: 'pending',
    scope: op.scope,
    workspace_name: op.workspaceName,
    from_regions: op.fromRegions,
    to_regions: op.toRegions,
    regions_to_add: regionsToAdd,
    regions_to_remove: regionsToRemove,
  };
}

/**
 * 400 PLAN_LIMIT_EXCEEDED when the tenant already started the plan's number of
 * region changes in the last 30 days.
 */
export async function checkRegionChangeBudget(
  auth: AuthContext,
  operations: Pick<OperationStore, 'countSince'>,
  now: number,
): Promise<void> {
  const allowed = auth.plan.regionChangesPer30Days;
  const since = new Date(now - REGION_CHANGE_WINDOW_MS);
  const started = await operations.countSince(auth.tenant, since);
  if (started >= allowed) {
    throw new PlanLimitExceeded(
      `The ${auth.plan.tier} plan allows ${allowed} region change(s) in any 30 days; ${started} were started since ${since.toISOString()}.`,
      { fields: { field: 'region_changes', allowed, tier: auth.plan.tier } },
    );
  }
}

/** Region changes of workspaces. */
export class RegionChangeService {
  constructor(
    private readonly deps: {
      workspaces: WorkspaceService;
      regions: readonly string[];
      operations: OperationStore;
      collections: WorkspaceCollections;
      /** Wakes the runner so the operation starts at once (it also polls). */
      started?: () => void;
      now?: () => number;
    },
  ) {}

  /** Answers a RegionsUpdateRequest for the workspace `ref`. */
  async changeWorkspaceRegions(
    auth: AuthContext,
    ref: string,
    requested: readonly string[],
  ): Promise<RegionChangeNoOp | RegionChangeAccepted> {
    const workspace = await this.deps.workspaces.resolve(auth, ref);
    const workspaceId = workspace.metadata.name ?? '';
    await this.deps.operations.assertFree(lockKey(auth.tenant, 'workspace', workspaceId));
    const current = workspace.spec.regions;
    const target = resolveWorkspaceRegions(
      requested,
      auth.account.homeRegion,
      this.deps.regions,
      auth.plan,
    );
    if (sameRegions(target, current)) {
      return {
        status: 'no_op',
        scope: 'workspace',
        current_regions: current,
        workspace_name: workspace.spec.name,
      };
    }
    const now = this.deps.now?.() ?? Date.now();
    await checkRegionChangeBudget(auth, this.deps.operations, now);
    const members = await this.deps.workspaces.agents(auth, ref);
    const collections = await this.deps.collections.in(auth.tenant, workspace.spec.name);
    const at = new Date(now);
    const op: RegionOperationDoc = {
      _id: randomUUID(),
      accountId: auth.account._id,
      environment: auth.tenant.environment,
      scope: 'workspace',
      workspaceId,
      workspaceName: workspace.spec.name,
      fromRegions: [...current],
      toRegions: target,
      state: 'pending',
      agents: members.map((a) => ({
        agentId: a.metadata.name ?? '',
        name: a.spec.name,
        state: 'pending',
        readyRegions: [],
      })),
      collections: collections.map((c) => ({
        name: c.name,
        collectionId: c.id,
        state: 'pending',
        pointsCopied: 0,
      })),
      error: null,
      attempts: 0,
      createdAt: at,
      updatedAt: at,
      startedAt: null,
      finishedAt: null,
    };
    // The workspace and each of its collections: a collection is not moved by two changes at once.
    await this.deps.operations.accept(op, [
      lockKey(auth.tenant, 'workspace', workspaceId),
      ...collections.map((c) => lockKey(auth.tenant, 'collection', c.id)),
    ]);
    this.deps.started?.();
    return accepted(op);
  }
}
