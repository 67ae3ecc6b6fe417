/** The region-change route of workspaces, declared for both Koa and the OpenAPI document. */
import {
  AgentKeyForbidden,
  PlanLimitExceeded,
  RegionNotAvailable,
  RequestTooLarge,
  WorkspaceNotFound,
} from '../../../errors/catalogue.js';
import type { RegionChangeService } from '../../../workspaces/region-change.js';
import { route, type AnyRoute } from '../../routing.js';
import { WorkspaceParams } from '../workspaces/schema.js';
import { RegionsUpdateRequest } from './schema.js';

/** The region-change routes, bound to a service. */
export function regionRoutes(changes: RegionChangeService): AnyRoute[] {
  return [
    route({
      method: 'patch',
      path: '/api/v1/workspaces/:workspace/regions',
      operationId: 'updateWorkspaceRegions',
      summary: "Change a workspace's regions",
      description:
        "Sends the desired final set of regions, compared with the current set as a set (order and repeats do not matter). An unchanged set answers 200 RegionChangeNoOp and records nothing. Every region must be offered (400 REGION_NOT_AVAILABLE) and the set no larger than the plan's region cap (400 PLAN_LIMIT_EXCEEDED); an empty set is 422. Moving a workspace to a different set of regions is not available in this release: a changed set is refused with 400 REGION_NOT_AVAILABLE, allowed naming the current regions, and nothing moves. The workspace is addressed by name or id; another account's is 404 WORKSPACE_NOT_FOUND.",
      tag: 'Workspaces',
      params: WorkspaceParams,
      body: RegionsUpdateRequest,
      bodySchemaName: 'RegionsUpdateRequest',
      responses: {
        200: { description: 'The set is unchanged; nothing to do.', schema: 'RegionChangeNoOp' },
      },
      errors: [
        WorkspaceNotFound,
        RegionNotAvailable,
        PlanLimitExceeded,
        AgentKeyForbidden,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        ctx.body = await changes.changeWorkspaceRegions(auth, params.workspace, body.regions);
      },
    }),
  ];
}
