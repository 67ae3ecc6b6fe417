/**
 * The usage routes: a period's totals against the plan's limits, an agent's
 * events in keyset pages, and the private route the operator reports
 * machines, runs and builds through (opened by its capability token).
 */
import { USAGE_TOKEN_SUBJECT, verifyInternalToken } from '../../../../../common/internal-token.js';
import { keyAgentScope } from '../../../auth/authenticate.js';
import {
  AgentKeyForbidden,
  AgentNotFound,
  InternalTokenInvalid,
  ValidationFailed,
} from '../../../errors/catalogue.js';
import type { Environment } from '../../../accounts/model.js';
import type { UsageKind } from '../../../usage/model.js';
import { decodeCursor, presentEventsPage, presentSummary } from '../../../usage/usage-presenter.js';
import type { UsageService } from '../../../usage/usage-service.js';
import type { UsageStore } from '../../../usage/usage-store.js';
import { usageEventDoc } from '../../../usage/model.js';
import { route, type AnyRoute } from '../../routing.js';
import * as yup from 'yup';
import { UsageAgentParams, UsageEventsQuery, UsageReport, UsageSummaryQuery } from './schema.js';

/** What the usage routes need. */
export interface UsageRouteDeps {
  service: UsageService;
  store: UsageStore;
  internalSecret: string;
}

/** 422 in the contract's shape for a query value the schema cannot judge alone. */
function badQuery(field: string, msg: string): ValidationFailed {
  return new ValidationFailed(msg, {
    fields: { violations: [{ loc: ['query', field], msg, type: 'value_error' }] },
  });
}

function range(query: { from?: string; to?: string }): { from?: Date; to?: Date } {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && from.getTime() >= to.getTime())
    throw badQuery('from', 'from must be before to.');
  return { from, to };
}

/** The usage routes. */
export function usageRoutes(deps: UsageRouteDeps): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/usage/summary',
      operationId: 'getUsageSummary',
      summary: "The account's usage for a period",
      description:
        "Totals per kind (compute, run, build, edge_request, control_request, vector_request, vector_storage) and per agent for the period, summed by the database from the events the platform recorded as the work happened, and the plan's monthly hard limits with what the period used of them. The period defaults to the current calendar month (UTC) up to now; from and to choose another. Covers both environments of the account (the plan's limits are the account's). An agent's own key is refused (403 AGENT_KEY_FORBIDDEN).",
      tag: 'Account',
      query: UsageSummaryQuery,
      responses: { 200: { description: 'The usage.', schema: 'UsageSummary' } },
      errors: [AgentKeyForbidden],
      handler: async (ctx, { auth, query }) => {
        if (keyAgentScope(auth))
          throw new AgentKeyForbidden("An agent's key cannot read the account's usage.");
        ctx.body = presentSummary(await deps.service.summary(auth, range(query)));
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/usage/agent/:agent_id/events',
      operationId: 'listAgentUsageEvents',
      summary: "An agent's usage events",
      description:
        "The usage events of one agent of this environment, newest first, in keyset pages: pass next_cursor as cursor to read on. Filters: kind (comma-separated), from and to (on when an event ended). A machine, a run or a build is one event with its start, end and seconds (compute also its memory); requests are one event per minute with their count and bytes. Unknown agents and other accounts' agents are 404 AGENT_NOT_FOUND.",
      tag: 'Account',
      params: UsageAgentParams,
      query: UsageEventsQuery,
      responses: { 200: { description: 'A page of events.', schema: 'UsageEventPage' } },
      errors: [AgentNotFound],
      handler: async (ctx, { auth, params, query }) => {
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
        if (after === null) throw badQuery('cursor', 'cursor is not one this server returned.');
        const page = await deps.service.events(auth, params.agent_id, {
          kinds: query.kind ? (query.kind.split(',') as UsageKind[]) : undefined,
          ...range(query),
          after,
          limit: query.limit,
        });
        ctx.body = presentEventsPage(page);
      },
    }),
    route({
      method: 'post',
      path: '/internal/usage',
      operationId: 'internalReportUsage',
      summary: 'Records machines, runs and builds (the operator)',
      description:
        "Opened by the capability token internalToken(secret, 'usage:write', 'operator'), never by an API key. Each event has a stable id (the same machine, run or build reported again is stored once); seconds are ended_at - started_at, and compute events carry the machine's memory.",
      tag: 'Internal',
      authenticated: false,
      query: yup.object({ token: yup.string().max(200).optional() }),
      body: UsageReport,
      bodySchemaName: 'UsageReport',
      responses: { 204: { description: 'Stored.' } },
      errors: [InternalTokenInvalid],
      handler: async (ctx, { query, body }) => {
        if (
          !query.token ||
          !verifyInternalToken(deps.internalSecret, 'usage:write', USAGE_TOKEN_SUBJECT, query.token)
        ) {
          throw new InternalTokenInvalid('This route needs its capability token.');
        }
        const now = new Date();
        await deps.store.insert(
          body.events.map((e) => {
            const startedAt = new Date(e.started_at);
            const at = new Date(e.ended_at);
            const seconds = Math.max(0, (at.getTime() - startedAt.getTime()) / 1000);
            return usageEventDoc(
              {
                _id: e.id,
                accountId: e.account_id,
                environment: e.environment as Environment,
                agentId: e.agent_id,
                deploymentId: e.deployment_id ?? null,
                kind: e.kind as UsageKind,
                startedAt,
                at,
                seconds,
                memoryMb: e.kind === 'compute' ? (e.memory_mb ?? 0) : 0,
              },
              e.id,
              now,
            );
          }),
        );
        ctx.status = 204;
      },
    }),
  ];
}
