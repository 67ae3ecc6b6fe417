/**
 * The log routes: customers read an agent's log in keyset pages; the operator
 * ships the lines of its agents' processes through a private route opened by a
 * capability token over the agent id (see common/internal-token.ts).
 */
import { verifyInternalToken } from '../../../../../common/internal-token.js';
import type { AgentService } from '../../../agents/agent-service.js';
import { AgentNotFound, InternalTokenInvalid, RequestTooLarge } from '../../../errors/catalogue.js';
import { MAX_MESSAGE_BYTES, type LogLevel, type LogStream } from '../../../logs/log-lines.js';
import { presentLogPage } from '../../../logs/log-presenter.js';
import type { LogStore } from '../../../logs/log-store.js';
import { MAX_JSON_BODY_BYTES } from '../../json-body.js';
import { route, type AnyRoute } from '../../routing.js';
import { LogAgentParams, LogIngest, LogIngestParams, LogIngestQuery, LogQuery } from './schema.js';

/** What the log routes need. */
export interface LogRouteDeps {
  agents: AgentService;
  logs: LogStore;
  /** The secret internal tokens are signed with (shared with the operator). */
  internalSecret: string;
}

const list = <T extends string>(value: string | undefined): T[] | undefined =>
  value === undefined ? undefined : (value.split(',') as T[]);

/** The log routes, bound to their services. */
export function logRoutes(deps: LogRouteDeps): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/logs',
      operationId: 'getAgentLogs',
      summary: "Read an agent's logs",
      description: [
        'The agent is addressed by UUID or by name. Logs are kept 7 days.',
        'A page holds up to limit entries, always ascending by id (oldest first).',
        'Without a cursor it is the newest entries; with before_id the newest entries older than before_id; with after_id the oldest entries newer than after_id.',
        'Scroll back by sending next_before_id as before_id until it is null; follow the log (tail -f) by sending next_after_id as after_id, again at once while has_more is true, else after a pause.',
        'Filters (stream, level, since) apply to the cursors too.',
        'An entry is listed as soon as it is stored, and only once every entry with a smaller id is, so following never skips one.',
        'A page examines a bounded number of stored entries: with a filter that matches few of them it may hold fewer than limit items with has_more true; next_after_id is then the last entry examined, past those the filters left out.',
      ].join(' '),
      tag: 'Logs',
      params: LogAgentParams,
      query: LogQuery,
      responses: { 200: { description: 'A page of log entries.', schema: 'LogPage' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, query, auth }) => {
        const agent = await deps.agents.resolve(auth, params.agent);
        const page = await deps.logs.query({
          accountId: auth.tenant.accountId,
          environment: auth.tenant.environment,
          agentId: agent.metadata.name ?? '',
          afterId: query.after_id,
          beforeId: query.before_id,
          limit: query.limit,
          streams: list<LogStream>(query.stream),
          levels: list<LogLevel>(query.level),
          since: query.since === undefined ? undefined : new Date(query.since),
        });
        ctx.body = presentLogPage(page);
      },
    }),
    route({
      method: 'post',
      path: '/internal/agents/:agent_id/logs',
      operationId: 'internalAppendLogs',
      summary: "Appends lines to an agent's log (the operator)",
      description: `Opened by the capability token internalToken(secret, 'logs:write', agent_id), never by an API key. Lines are stored in the order sent; a message longer than ${MAX_MESSAGE_BYTES} bytes is cut. The JSON body is at most ${MAX_JSON_BODY_BYTES} bytes: batch lines to fit.`,
      tag: 'Internal',
      authenticated: false,
      params: LogIngestParams,
      query: LogIngestQuery,
      body: LogIngest,
      bodySchemaName: 'LogIngest',
      responses: { 204: { description: 'Stored.' } },
      errors: [InternalTokenInvalid, RequestTooLarge],
      handler: async (ctx, { params, query, body }) => {
        const agentId = params.agent_id;
        if (
          !query.token ||
          !verifyInternalToken(deps.internalSecret, 'logs:write', agentId, query.token)
        ) {
          throw new InternalTokenInvalid('This route needs its capability token.');
        }
        await deps.logs.append(
          body.entries.map((entry) => ({
            accountId: body.account_id,
            environment: body.environment,
            agentId,
            deploymentId: entry.deployment_id ?? null,
            timestamp: entry.timestamp === undefined ? undefined : new Date(entry.timestamp),
            stream: entry.stream,
            level: entry.level,
            message: entry.message,
          })),
        );
        ctx.status = 204;
      },
    }),
  ];
}
