/** The workspace routes: thin handlers over WorkspaceService, declared for both Koa and the OpenAPI document. */
import {
  AgentKeyForbidden,
  PlanLimitExceeded,
  RegionNotAvailable,
  RequestTooLarge,
  ResourceBusy,
  WorkspaceNameImmutable,
  WorkspaceNameTaken,
  WorkspaceNotEmpty,
  WorkspaceNotFound,
} from '../../../errors/catalogue.js';
import {
  presentWorkspace,
  presentWorkspaceAgent,
} from '../../../workspaces/workspace-presenter.js';
import type { CountedWorkspace, WorkspaceService } from '../../../workspaces/workspace-service.js';
import { route, type AnyRoute } from '../../routing.js';
import { WorkspaceCreate, WorkspaceListQuery, WorkspaceParams, WorkspaceUpdate } from './schema.js';

const TAG = 'Workspaces';
const byRef =
  "The workspace is addressed by name or by id. Another account's workspace is 404 WORKSPACE_NOT_FOUND, as if it did not exist. An agent's own key (SVC_API_KEY) is 403 AGENT_KEY_FORBIDDEN on every workspace route.";
const membership =
  'An agent is in a workspace when its workspace_name names it: set workspace_name on agent create or update to move an agent in, another name to move it, null to move it out. agent_count is counted when the workspace is read.';

const present = ({ workspace, agentCount }: CountedWorkspace) =>
  presentWorkspace(workspace, agentCount);

/** One page of `items` and the offset envelope every list route answers with. */
function page<T>(items: readonly T[], query: { limit?: number; offset?: number }) {
  const offset = query.offset ?? 0;
  const limit = query.limit ?? 20;
  const slice = items.slice(offset, offset + limit);
  const next = offset + slice.length;
  return {
    items: slice,
    total: items.length,
    limit,
    offset,
    next_offset: next < items.length ? next : null,
  };
}

/** The workspace routes, bound to a service. */
export function workspaceRoutes(workspaces: WorkspaceService): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/workspaces',
      operationId: 'createWorkspace',
      summary: 'Create a workspace',
      description: `Names are unique per account and immutable. regions omitted inherits the account's home region; an empty array is refused. The id is derived from the account and the name. ${membership}`,
      tag: TAG,
      body: WorkspaceCreate,
      bodySchemaName: 'WorkspaceCreate',
      responses: { 201: { description: 'The new workspace.', schema: 'Workspace' } },
      errors: [
        WorkspaceNameTaken,
        RegionNotAvailable,
        PlanLimitExceeded,
        AgentKeyForbidden,
        RequestTooLarge,
      ],
      handler: async (ctx, { body, auth }) => {
        const created = await workspaces.create(auth, body);
        ctx.status = 201;
        ctx.set('Location', `/api/v1/workspaces/${created.workspace.spec.name}`);
        ctx.body = present(created);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/workspaces',
      operationId: 'listWorkspaces',
      summary: 'List workspaces',
      description:
        'Ordered by name. Offset pagination, as on every list route: pass next_offset as offset until it is null.',
      tag: TAG,
      query: WorkspaceListQuery,
      responses: { 200: { description: 'A page of workspaces.', schema: 'WorkspaceList' } },
      errors: [AgentKeyForbidden],
      handler: async (ctx, { query, auth }) => {
        ctx.body = page((await workspaces.list(auth)).map(present), query);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/workspaces/:workspace',
      operationId: 'getWorkspace',
      summary: 'Get a workspace',
      description: byRef,
      tag: TAG,
      params: WorkspaceParams,
      responses: { 200: { description: 'The workspace.', schema: 'Workspace' } },
      errors: [WorkspaceNotFound, AgentKeyForbidden],
      handler: async (ctx, { params, auth }) => {
        ctx.body = present(await workspaces.get(auth, params.workspace));
      },
    }),
    route({
      method: 'patch',
      path: '/api/v1/workspaces/:workspace',
      operationId: 'updateWorkspace',
      summary: 'Update a workspace',
      description: `${byRef} Only the description changes; sending a different name is 400 WORKSPACE_NAME_IMMUTABLE, and regions change through PATCH /api/v1/workspaces/{workspace}/regions.`,
      tag: TAG,
      params: WorkspaceParams,
      body: WorkspaceUpdate,
      bodySchemaName: 'WorkspaceUpdate',
      responses: { 200: { description: 'The updated workspace.', schema: 'Workspace' } },
      errors: [
        WorkspaceNotFound,
        WorkspaceNameImmutable,
        AgentKeyForbidden,
        ResourceBusy,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        ctx.body = present(await workspaces.update(auth, params.workspace, body));
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/workspaces/:workspace',
      operationId: 'deleteWorkspace',
      summary: 'Delete a workspace',
      description: `${byRef} Refused, deleting nothing, while agents or collections are in the workspace: 409 WORKSPACE_NOT_EMPTY lists them in dependents {agents: [{id, name}], collections: [name]}; move or delete them first. Nothing is cascaded and nothing is orphaned. An empty workspace is deleted at once with its secrets, whose number secrets_deleted reports.`,
      tag: TAG,
      params: WorkspaceParams,
      responses: {
        200: { description: 'Deleted.', schema: 'WorkspaceDeleteResult' },
      },
      errors: [WorkspaceNotFound, WorkspaceNotEmpty, AgentKeyForbidden],
      handler: async (ctx, { params, auth }) => {
        const { secretsDeleted } = await workspaces.delete(auth, params.workspace);
        ctx.body = { status: 'deleted', secrets_deleted: secretsDeleted };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/workspaces/:workspace/agents',
      operationId: 'listWorkspaceAgents',
      summary: 'List the agents of a workspace',
      description: `${byRef} ${membership} Ordered by name, offset pagination as on every list route.`,
      tag: TAG,
      params: WorkspaceParams,
      query: WorkspaceListQuery,
      responses: {
        200: { description: 'A page of WorkspaceAgent records.', schema: 'WorkspaceAgentList' },
      },
      errors: [WorkspaceNotFound, AgentKeyForbidden],
      handler: async (ctx, { params, query, auth }) => {
        const agents = await workspaces.agents(auth, params.workspace);
        ctx.body = page(agents.map(presentWorkspaceAgent), query);
      },
    }),
  ];
}
