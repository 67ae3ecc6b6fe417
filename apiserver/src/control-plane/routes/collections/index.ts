/** The control plane's collection route: moving a vector collection to another workspace or regions. */
import {
  AgentKeyForbidden,
  CollectionNameTaken,
  CollectionNotFound,
  CollectionRegionsEmpty,
  CollectionRegionsNotInScope,
  PlanLimitExceeded,
  RegionChangeInProgress,
  RequestTooLarge,
  StarterRegionConsistency,
  WorkspaceNotFound,
} from '../../../errors/catalogue.js';
import type { CollectionChangeService } from '../../../operations/collection-change.js';
import { route, type AnyRoute } from '../../routing.js';
import { CollectionParams, CollectionUpdateRequest } from './schema.js';

/** The collection routes of the control plane, bound to a service. */
export function collectionRoutes(changes: CollectionChangeService): AnyRoute[] {
  return [
    route({
      method: 'patch',
      path: '/api/v1/collections/:collection_id',
      operationId: 'updateCollection',
      summary: 'Move a collection to another workspace or change its regions',
      description:
        "Sends the workspace (workspace_name; null: none) and the set of regions the collection is to have; a key left out is kept. Nothing to change answers 200 RegionChangeNoOp (scope collection). Otherwise 202 RegionChangeAccepted with an operation_id to poll, under the same rules as a workspace's region change (the plan's region changes per 30 days: 400 PLAN_LIMIT_EXCEEDED; one change at a time per collection: 409 REGION_CHANGE_IN_PROGRESS): the points are copied in batches into the engine of the collection's new region, under its name in the new workspace, while it keeps serving from the old one (writes made meanwhile included; at the switch, writes wait a few seconds); then it is served from there, under its new workspace (the old name answers 404 COLLECTION_NOT_FOUND), its payload schema and its record of agents' use going with it, and the old copy is dropped. While it moves, its lifecycle_status on the vector plane is region_change_in_progress or workspace_move_in_progress; after a failure, region_change_rolled_back. Another account's collection is 404 COLLECTION_NOT_FOUND; an agent's own key is 403 AGENT_KEY_FORBIDDEN.",
      tag: 'Workspaces',
      params: CollectionParams,
      body: CollectionUpdateRequest,
      bodySchemaName: 'CollectionUpdateRequest',
      responses: {
        200: { description: 'Nothing to change.', schema: 'RegionChangeNoOp' },
        202: {
          description: 'The change was accepted; poll the operation.',
          schema: 'RegionChangeAccepted',
        },
      },
      errors: [
        CollectionNotFound,
        WorkspaceNotFound,
        CollectionNameTaken,
        CollectionRegionsEmpty,
        CollectionRegionsNotInScope,
        StarterRegionConsistency,
        PlanLimitExceeded,
        RegionChangeInProgress,
        AgentKeyForbidden,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        const answer = await changes.change(auth, params.collection_id, {
          ...(body.regions === undefined ? {} : { regions: body.regions }),
          ...(body.workspace_name === undefined ? {} : { workspace_name: body.workspace_name }),
        });
        if ('operation_id' in answer) {
          ctx.status = 202;
          ctx.set('Location', `/api/v1/operations/${answer.operation_id}`);
        }
        ctx.body = answer;
      },
    }),
  ];
}
