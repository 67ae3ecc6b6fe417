/** The agent routes: thin handlers over AgentService, declared for both Koa and the OpenAPI document. */
import { stringify } from 'yaml';
import { agentConfigFile, presentAgent, cachedAgentJson } from '../../../agents/agent-presenter.js';
import type { AgentService } from '../../../agents/agent-service.js';
import {
  AgentKeyForbidden,
  AgentNameTaken,
  AgentNotDeployed,
  AgentNotFound,
  AgentStateConflict,
  PlanLimitExceeded,
  RegionNotAvailable,
  RequestTooLarge,
  ResourceBusy,
  RuntimeImmutable,
} from '../../../errors/catalogue.js';
import { route, type AnyRoute } from '../../routing.js';
import { AgentCreate, AgentListQuery, AgentParams, AgentUpdate } from './schema.js';

const TAG = 'Agents';
const byRef = 'The agent is addressed by UUID or by name.';

/** The agent routes, bound to a service. */
export function agentRoutes(agents: AgentService): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/agents',
      operationId: 'createAgent',
      summary: 'Create an agent',
      description:
        'Creates an agent without deploying it. Per-agent plan caps (memory, keep_alive, regions, runtime) are checked here; the agent-count quota is checked at deploy.',
      tag: TAG,
      body: AgentCreate,
      bodySchemaName: 'AgentCreate',
      responses: { 201: { description: 'The new agent.', schema: 'Agent' } },
      errors: [
        AgentNameTaken,
        PlanLimitExceeded,
        RegionNotAvailable,
        RequestTooLarge,
        AgentKeyForbidden,
      ],
      handler: async (ctx, { body, auth }) => {
        const agent = await agents.create(auth, body);
        ctx.status = 201;
        ctx.set('Location', `/api/v1/agents/${agent.metadata.name}`);
        ctx.body = presentAgent(agent);
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents',
      operationId: 'listAgents',
      summary: 'List agents',
      description:
        "Ordered by name. Offset pagination: pass next_offset as offset until it is null. With an agent's own key (SVC_API_KEY), only that agent.",
      tag: TAG,
      query: AgentListQuery,
      responses: { 200: { description: 'A page of agents.', schema: 'AgentList' } },
      errors: [],
      handler: async (ctx, { query, auth }) => {
        const all = (await agents.list(auth)).map(presentAgent);
        const matching = all.filter(
          (a) =>
            (!query.status || a.status === query.status) &&
            (!query.agent_type || a.agent_type === query.agent_type) &&
            (query.workspace_name === undefined || a.workspace_name === query.workspace_name),
        );
        const offset = query.offset ?? 0;
        const limit = query.limit ?? 20;
        const items = matching.slice(offset, offset + limit);
        const next = offset + items.length;
        ctx.body = {
          items,
          total: matching.length,
          limit,
          offset,
          next_offset: next < matching.length ? next : null,
        };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent',
      operationId: 'getAgent',
      summary: 'Get an agent',
      description: byRef,
      tag: TAG,
      params: AgentParams,
      responses: { 200: { description: 'The agent.', schema: 'Agent' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, auth }) => {
        const json = cachedAgentJson(await agents.view(auth, params.agent));
        ctx.type = 'json';
        ctx.body = json;
      },
    }),
    route({
      method: 'patch',
      path: '/api/v1/agents/:agent',
      operationId: 'updateAgent',
      summary: 'Update an agent',
      description: `${byRef} Renaming keeps the id and the address. Changes apply on the next deploy. A runtime change is 400 RUNTIME_IMMUTABLE.`,
      tag: TAG,
      params: AgentParams,
      body: AgentUpdate,
      bodySchemaName: 'AgentUpdate',
      responses: { 200: { description: 'The updated agent.', schema: 'Agent' } },
      errors: [
        AgentNotFound,
        AgentNameTaken,
        RuntimeImmutable,
        PlanLimitExceeded,
        ResourceBusy,
        RequestTooLarge,
      ],
      handler: async (ctx, { params, body, auth }) => {
        ctx.body = presentAgent(await agents.update(auth, params.agent, body));
      },
    }),
    route({
      method: 'delete',
      path: '/api/v1/agents/:agent',
      operationId: 'deleteAgent',
      summary: 'Delete an agent',
      description: `${byRef} Accepted: the agent's workloads are removed in the background; its name is free at once, and the keys injected into it stop working at once.`,
      tag: TAG,
      params: AgentParams,
      responses: { 202: { description: 'Deletion accepted.', schema: 'AgentAction' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, auth }) => {
        const agent = await agents.delete(auth, params.agent);
        ctx.status = 202;
        ctx.body = { id: agent.metadata.name, name: agent.spec.name, status: 'deleting' };
      },
    }),
    ...(['stop', 'start', 'archive', 'restore'] as const).map((action) =>
      route({
        method: 'post',
        path: `/api/v1/agents/:agent/${action}`,
        operationId: `${action}Agent`,
        summary: `${action[0]?.toUpperCase()}${action.slice(1)} an agent`,
        description: {
          stop: `${byRef} Stops a deployed agent; the 202 body carries the label paused.`,
          start: `${byRef} Starts a stopped, deployed agent; the 202 body carries the label starting.`,
          archive: `${byRef} Offered when the agent is deployed; the 202 body carries the label archiving.`,
          restore: `${byRef} Restores an archived agent; the 202 body carries the label restoring.`,
        }[action],
        tag: TAG,
        params: AgentParams,
        responses: { 202: { description: 'Accepted; poll the agent.', schema: 'AgentAction' } },
        errors: [AgentNotFound, AgentNotDeployed, AgentStateConflict, ResourceBusy],
        handler: async (ctx, { params, auth }) => {
          const [agent, label] = await agents.act(auth, params.agent, action);
          ctx.status = 202;
          ctx.body = { id: agent.metadata.name, name: agent.spec.name, status: label };
        },
      }),
    ),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/status',
      operationId: 'getAgentStatus',
      summary: "Get an agent's live machine state",
      description: `${byRef} Machines are read from the cluster in this request (source live); when that read fails, the last stored values are returned with source cached.`,
      tag: TAG,
      params: AgentParams,
      responses: { 200: { description: 'AgentStatusDetail.', schema: 'AgentStatusDetail' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, auth }) => {
        const agent = await agents.resolve(auth, params.agent);
        const record = presentAgent(agent);
        ctx.body = {
          agent_id: record.id,
          name: record.name,
          status: record.status,
          url: record.url,
          machines: await agents.machines(auth, agent),
        };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/yaml',
      operationId: 'getAgentYaml',
      summary: "Get an agent's configuration as svc.yaml",
      description: `${byRef} The agent's settings in the svc.yaml format (name, runtime, type, entrypoint, memory_mb, regions, schedule), ready to commit beside the code.`,
      tag: TAG,
      params: AgentParams,
      responses: {
        200: {
          description: 'svc.yaml text; its schema is that of the parsed document.',
          contentType: 'application/yaml',
          schema: 'AgentConfigFile',
        },
      },
      errors: [AgentNotFound],
      handler: async (ctx, { params, auth }) => {
        const agent = await agents.resolve(auth, params.agent);
        ctx.type = 'application/yaml';
        // Written with YAML 1.1's quoting rules, which are stricter than 1.2's: a name such as
        // `yes` or `2024-01-01` stays a string for 1.1 parsers (PyYAML) as well as for 1.2 ones.
        ctx.body = stringify(agentConfigFile(agent), { version: '1.1' });
      },
    }),
  ];
}
