/**
 * `PATCH /api/v1/workspaces/{workspace}/regions`: the desired final set of a
 * workspace's regions, compared with the current one as a set. An unchanged
 * set is a no-op that records nothing. A changed set is checked against the
 * region registry and the plan's cap; moving a workspace between regions needs
 * the region-change operation that places agents and copies collections,
 * which this installation cannot run yet, so a changed set is refused with
 * 400 REGION_NOT_AVAILABLE and nothing is recorded.
 */
import type { AuthContext } from '../auth/authenticate.js';
import { RegionNotAvailable } from '../errors/catalogue.js';
import { resolveWorkspaceRegions, sameRegions } from './workspace-regions.js';
import type { WorkspaceService } from './workspace-service.js';

/** RegionChangeNoOp. */
export interface RegionChangeNoOp {
  status: 'no_op';
  scope: 'workspace';
  current_regions: string[];
  workspace_name: string;
}

/** Region changes of workspaces. */
export class RegionChangeService {
  constructor(
    private readonly deps: { workspaces: WorkspaceService; regions: readonly string[] },
  ) {}

  /** Answers a RegionsUpdateRequest for the workspace `ref`. */
  async changeWorkspaceRegions(
    auth: AuthContext,
    ref: string,
    requested: readonly string[],
  ): Promise<RegionChangeNoOp> {
    const workspace = await this.deps.workspaces.resolve(auth, ref);
    const current = workspace.spec.regions;
    const target = resolveWorkspaceRegions(
      requested,
      auth.account.homeRegion,
      this.deps.regions,
      auth.plan,
    );
    if (!sameRegions(target, current)) {
      throw new RegionNotAvailable(
        `The workspace ${workspace.spec.name} is in ${current.join(', ')}; this installation cannot move a workspace to other regions yet.`,
        { fields: { field: 'regions', allowed: current } },
      );
    }
    return {
      status: 'no_op',
      scope: 'workspace',
      current_regions: current,
      workspace_name: workspace.spec.name,
    };
  }
}
