/** The region-change route of workspaces, declared for both Koa and the OpenAPI document. */
import {
  AgentKeyForbidden,
  PlanLimitExceeded,
  RegionChangeInProgress,
  RegionNotAvailable,
  RequestTooLarge,
  WorkspaceNotFound,
} from '../../../errors/catalogue.js';
import type { RegionChangeService } from '../../../workspaces/region-change.js';
import { route, type AnyRoute } from '../../routing.js';
import { WorkspaceParams } from '../workspaces/schema.js';
import { RegionsUpdateRequest } from './schema.js';

/** How a region change is carried out, for the document. */
export const CHANGE_STEPS =
  "A changed set answers 202 RegionChangeAccepted with an operation_id to poll: the change runs in the background. The plan allows a number of region changes in any 30 days (400 PLAN_LIMIT_EXCEEDED, field region_changes: free 3, starter 10, performance 30, enterprise 100 by default; regionChangesPer30Days in SVC_PLANS_JSON), and one change at a time per workspace or collection (409 REGION_CHANGE_IN_PROGRESS, carrying operation_id). The workspace takes its new regions at once (agents created meanwhile go there); each of its agents is deployed into every added region (its current version, built there from its stored archive, with its secrets and its key) and the change waits until each added region serves it. Each collection of the workspace whose points are in a removed region's engine is copied into the engine of its new region, in batches, while the old one keeps serving searches and writes; writes made meanwhile are logged and copied too, and at the switch writes wait a few seconds while the last of them are copied. Only then are the agents and points left in removed regions deleted. A failure before that point (a version that fails to build in an added region, an agent not ready within 15 minutes) rolls back: what was added is removed, the old placement keeps serving, and the operation ends rolled_back with the reason in error.";

/** The region-change routes, bound to a service. */
export function regionRoutes(changes: RegionChangeService): AnyRoute[] {
  return [
    route({
      method: 'patch',
      path: '/api/v1/workspaces/:workspace/regions',
      operationId: 'updateWorkspaceRegions',
      summary: "Change a workspace's regions",
      description: `Sends the desired final set of regions, compared with the current set as a set (order and repeats do not matter). An unchanged set answers 200 RegionChangeNoOp and records nothing. Every region must be offered (400 REGION_NOT_AVAILABLE) and the set no larger than the plan's region cap (400 PLAN_LIMIT_EXCEEDED, field regions); an empty set is 422. ${CHANGE_STEPS} The workspace is addressed by name or id; another account's is 404 WORKSPACE_NOT_FOUND.`,
      tag: 'Workspaces',
      params: WorkspaceParams,
      body: RegionsUpdateRequest,
      bodySchemaName: 'RegionsUpdateRequest',
      responses: {
        200: { description: 'The set is unchanged; nothing to do.', schema: 'RegionChangeNoOp' },
        202: {
          description: 'The change was accepted; poll the operation.',
          schema: 'RegionChangeAccepted',
        },
      },
      errors: [
        WorkspaceNotFound,
        RegionNotAvailable,
        PlanLimitExceeded,
        RegionChangeInProgress,
        AgentKeyForbidden,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        const answer = await changes.changeWorkspaceRegions(auth, params.workspace, body.regions);
        if ('operation_id' in answer) {
          ctx.status = 202;
          ctx.set('Location', `/api/v1/operations/${answer.operation_id}`);
        }
        ctx.body = answer;
      },
    }),
  ];
}
