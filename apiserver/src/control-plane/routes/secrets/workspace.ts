/** The workspace secret routes: thin handlers over WorkspaceSecretService, declared for both Koa and the OpenAPI document. */
import {
  AgentKeyForbidden,
  PlanLimitExceeded,
  RequestTooLarge,
  ResourceBusy,
  SecretNotFound,
  SecretValueTooLarge,
  WorkspaceNotFound,
} from '../../../errors/catalogue.js';
import { presentWorkspaceSecret } from '../../../secrets/secret-presenter.js';
import type { WorkspaceSecretService } from '../../../secrets/workspace-secret-service.js';
import { route, type AnyRoute } from '../../routing.js';
import {
  SecretCreate,
  SecretListQuery,
  WorkspaceSecretKeyParams,
  WorkspaceSecretListParams,
} from './schema.js';

const TAG = 'Secrets';
const scope =
  "The workspace is addressed by name or id; another account's workspace is 404 WORKSPACE_NOT_FOUND, as if it did not exist, and an agent's own key (SVC_API_KEY) is 403 AGENT_KEY_FORBIDDEN. No response carries a secret value, and a 422 never quotes it.";
const injection =
  "Every agent in the workspace gets each workspace secret as an environment variable of the key's name, beside its own secrets; on the same key, the agent's own secret wins. A change rolls the services of the workspace's agents within seconds, as an agent secret's does; runs see the values current when they start.";

/** The workspace secret routes, bound to a service. */
export function workspaceSecretRoutes(secrets: WorkspaceSecretService): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/workspaces/:workspace/secrets',
      operationId: 'setWorkspaceSecret',
      summary: 'Set a secret of a workspace (upsert)',
      description: `Creates the key (201) or replaces the value of an existing one (200); the response is the WorkspaceSecret record, never the value. Keys follow the agent secret rules. ${scope} ${injection} Caps: the plan's number of secrets per workspace (400 PLAN_LIMIT_EXCEEDED: free 10, starter 50, performance 100, enterprise 200 by default; secretsPerHolder in SVC_PLANS_JSON), 64 KiB per value and 512 KiB for all of a workspace's values together (413 SECRET_VALUE_TOO_LARGE).`,
      tag: TAG,
      params: WorkspaceSecretListParams,
      body: SecretCreate,
      bodySchemaName: 'SecretCreate',
      responses: {
        200: { description: 'The existing secret, its value replaced.', schema: 'WorkspaceSecret' },
        201: { description: 'The new secret.', schema: 'WorkspaceSecret' },
      },
      errors: [
        WorkspaceNotFound,
        AgentKeyForbidden,
        PlanLimitExceeded,
        SecretValueTooLarge,
        ResourceBusy,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        const { secret, created } = await secrets.put(auth, params.workspace, body);
        ctx.status = created ? 201 : 200;
        ctx.body = presentWorkspaceSecret(secret);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/workspaces/:workspace/secrets',
      operationId: 'listWorkspaceSecrets',
      summary: 'List the secrets of a workspace',
      description: `WorkspaceSecret records, ordered by key, without values. Offset pagination, as on every list route. ${scope}`,
      tag: TAG,
      params: WorkspaceSecretListParams,
      query: SecretListQuery,
      responses: {
        200: { description: 'A page of WorkspaceSecret records.', schema: 'WorkspaceSecretList' },
      },
      errors: [WorkspaceNotFound, AgentKeyForbidden],
      handler: async (ctx, { params, query, auth }) => {
        const all = (await secrets.list(auth, params.workspace)).map(presentWorkspaceSecret);
        const items = all.slice(query.offset, query.offset + query.limit);
        const next = query.offset + items.length;
        ctx.body = {
          items,
          total: all.length,
          limit: query.limit,
          offset: query.offset,
          next_offset: next < all.length ? next : null,
        };
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/workspaces/:workspace/secrets/:key',
      operationId: 'deleteWorkspaceSecret',
      summary: 'Delete a secret of a workspace',
      description: `Removes the key; the services of the workspace's agents are restarted without it within seconds (an agent's own secret of that key stays). ${scope}`,
      tag: TAG,
      params: WorkspaceSecretKeyParams,
      responses: { 204: { description: 'Deleted.' } },
      errors: [WorkspaceNotFound, AgentKeyForbidden, SecretNotFound, ResourceBusy],
      handler: async (ctx, { params, auth }) => {
        await secrets.delete(auth, params.workspace, params.key);
        ctx.status = 204;
      },
    }),
  ];
}
