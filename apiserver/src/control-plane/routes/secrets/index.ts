/** The agent secret routes: thin handlers over SecretService, declared for both Koa and the OpenAPI document. */
import {
  AgentNotFound,
  PlanLimitExceeded,
  RequestTooLarge,
  ResourceBusy,
  SecretNotFound,
  SecretValueTooLarge,
} from '../../../errors/catalogue.js';
import { presentSecret } from '../../../secrets/secret-presenter.js';
import type { SecretService } from '../../../secrets/secret-service.js';
import { route, type AnyRoute } from '../../routing.js';
import {
  SecretCreate,
  SecretKeyParams,
  SecretListParams,
  SecretListQuery,
  SecretRotate,
} from './schema.js';

const TAG = 'Secrets';
const scope =
  "The agent is addressed by name or UUID; another account's agent is 404 AGENT_NOT_FOUND, as if it did not exist (an agent's own key reaches its own agent only). No response carries a secret value, and a 422 never quotes it.";
const injection =
  "Every process of the agent (its service, runs, scheduled runs and spawned children; not its builds) gets each secret as an environment variable of the key's name. A change reaches a running service within seconds without a failed request: a process with the new values starts beside the running one and takes over once it answers its health check (on one machine; in a cluster the change of the pod template's svc.dev/secrets-revision makes the Deployment roll, new pods first). A run sees the values current when it starts; a scheduled run those current when it fires. A line an agent prints that holds one of its values (4 characters or more) is stored with the value replaced by ***.";

/** The agent secret routes, bound to a service. */
export function secretRoutes(secrets: SecretService): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/secrets',
      operationId: 'setAgentSecret',
      summary: 'Set a secret of an agent (upsert)',
      description: `Creates the key (201) or replaces the value of an existing one (200); the response is the Secret record, never the value. ${scope} ${injection} Caps: the plan's number of secrets per agent (400 PLAN_LIMIT_EXCEEDED: free 10, starter 50, performance 100, enterprise 200 by default; secretsPerHolder in SVC_PLANS_JSON), 64 KiB per value and 512 KiB for all of an agent's values together (413 SECRET_VALUE_TOO_LARGE).`,
      tag: TAG,
      params: SecretListParams,
      body: SecretCreate,
      bodySchemaName: 'SecretCreate',
      responses: {
        200: { description: 'The existing secret, its value replaced.', schema: 'Secret' },
        201: { description: 'The new secret.', schema: 'Secret' },
      },
      errors: [
        AgentNotFound,
        PlanLimitExceeded,
        SecretValueTooLarge,
        ResourceBusy,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        const { secret, created } = await secrets.put(auth, params.agent, body);
        ctx.status = created ? 201 : 200;
        ctx.body = presentSecret(secret);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/secrets',
      operationId: 'listAgentSecrets',
      summary: 'List the secrets of an agent',
      description: `Secret records, ordered by key, without values. Offset pagination, as on every list route. ${scope}`,
      tag: TAG,
      params: SecretListParams,
      query: SecretListQuery,
      responses: { 200: { description: 'A page of Secret records.', schema: 'SecretList' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, query, auth }) => {
        const all = (await secrets.list(auth, params.agent)).map(presentSecret);
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
      path: '/api/v1/agents/:agent/secrets/:key',
      operationId: 'deleteAgentSecret',
      summary: 'Delete a secret of an agent',
      description: `Removes the key; the running service is restarted without it within seconds. ${scope}`,
      tag: TAG,
      params: SecretKeyParams,
      responses: { 204: { description: 'Deleted.' } },
      errors: [AgentNotFound, SecretNotFound, ResourceBusy],
      handler: async (ctx, { params, auth }) => {
        await secrets.delete(auth, params.agent, params.key);
        ctx.status = 204;
      },
    }),
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/secrets/:key/rotate',
      operationId: 'rotateAgentSecret',
      summary: 'Rotate a secret of an agent',
      description: `Replaces the value of an existing key with the one sent (the platform never generates a value, and never returns one), keeping its id, description and created_at, and rolls the agent's running service so it picks the new value up within seconds; runs started from then on see it. Unlike setting a secret, rotating a key that does not exist is 404 SECRET_NOT_FOUND. ${scope}`,
      tag: TAG,
      params: SecretKeyParams,
      body: SecretRotate,
      bodySchemaName: 'SecretRotate',
      responses: { 200: { description: 'The secret, its value replaced.', schema: 'Secret' } },
      errors: [AgentNotFound, SecretNotFound, SecretValueTooLarge, ResourceBusy, RequestTooLarge],
      handler: async (ctx, { params, body, auth }) => {
        ctx.body = presentSecret(await secrets.rotate(auth, params.agent, params.key, body.value));
      },
    }),
  ];
}
