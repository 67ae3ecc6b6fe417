/** Run, schedule and spawn routes: thin handlers over RunService. */
import type { AgentService } from '../../../agents/agent-service.js';
import {
  AgentNotDeployed,
  AgentNotFound,
  AgentStateConflict,
  ResourceBusy,
  RunsInFlightExceeded,
  ScheduleNotSet,
  SpawnNotAllowed,
} from '../../../errors/catalogue.js';
import type { RunService } from '../../../runs/run-service.js';
import { route, type AnyRoute } from '../../routing.js';
import { AgentParams } from '../agents/schema.js';
import { RunListQuery, RunRequest, SpawnRequest } from './schema.js';

const TAG = 'Runs';

/** The run, schedule and spawn routes. */
export function runRoutes(agents: AgentService, runs: RunService): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/run',
      operationId: 'runAgent',
      summary: 'Run an agent now',
      description:
        "Starts one run of the agent's active version (a job runs its entry point; a service gets POST /svc/run). The payload is read back by the run. Limited by the plan's runs in flight. A request made with the agent's own deployment key and the header X-Svc-Trigger: cron is recorded as a cron run (how schedules fire).",
      tag: TAG,
      params: AgentParams,
      body: RunRequest,
      bodySchemaName: 'RunRequest',
      responses: { 202: { description: 'RunAccepted.', schema: 'RunAccepted' } },
      errors: [AgentNotFound, AgentNotDeployed, RunsInFlightExceeded],
      handler: async (ctx, { params, body, auth }) => {
        const agent = await agents.resolve(auth, params.agent);
        const cron =
          ctx.get('x-svc-trigger') === 'cron' && auth.key.agentId === agent.metadata.name;
        const { accepted } = await runs.run(
          auth,
          agent,
          body?.payload ?? null,
          cron ? 'cron' : 'manual',
        );
        ctx.status = 202;
        ctx.body = accepted;
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/agents/:agent/runs',
      operationId: 'listRuns',
      summary: "List an agent's runs",
      description:
        'Manual and scheduled runs, newest first, offset-paged; spawned runs are not listed.',
      tag: TAG,
      params: AgentParams,
      query: RunListQuery,
      responses: { 200: { description: 'A page of runs.', schema: 'RunList' } },
      errors: [AgentNotFound],
      handler: async (ctx, { params, query, auth }) => {
        const agent = await agents.resolve(auth, params.agent);
        ctx.body = await runs.history(auth, agent, query.limit ?? 20, query.offset ?? 0);
      },
    }),
    ...(['pause', 'resume'] as const).map((action) =>
      route({
        method: 'post',
        path: `/api/v1/agents/:agent/schedule/${action}`,
        operationId: `${action}Schedule`,
        summary: `${action === 'pause' ? 'Pause' : 'Resume'} the schedule`,
        description:
          action === 'pause'
            ? 'Idempotent: pausing a paused schedule returns changed false and alters nothing.'
            : 'Idempotent; the next run is computed from now and missed runs are never backfilled.',
        tag: TAG,
        params: AgentParams,
        responses: { 200: { description: 'ScheduleState.', schema: 'ScheduleState' } },
        errors: [AgentNotFound, ScheduleNotSet, ResourceBusy],
        handler: async (ctx, { params, auth }) => {
          const agent = await agents.resolve(auth, params.agent);
          ctx.body = await runs.setSchedulePaused(auth, agent, action === 'pause');
        },
      }),
    ),
    route({
      method: 'post',
      path: '/api/v1/agents/:agent/spawn',
      operationId: 'spawnAgent',
      summary: 'Spawn a job agent from this agent',
      description:
        "Starts a run of a job agent (child_agent_id: UUID or name) on behalf of this agent, which needs spawn_enabled (and the child in allowed_workers when that list is set). The child runs in the parent's region and gets SVC_SPAWN_ID.",
      tag: TAG,
      params: AgentParams,
      body: SpawnRequest,
      bodySchemaName: 'SpawnRequest',
      responses: { 202: { description: 'SpawnResponse.', schema: 'SpawnResponse' } },
      errors: [
        AgentNotFound,
        SpawnNotAllowed,
        AgentStateConflict,
        AgentNotDeployed,
        RunsInFlightExceeded,
      ],
      handler: async (ctx, { params, body, auth }) => {
        const parent = await agents.resolve(auth, params.agent);
        ctx.status = 202;
        ctx.body = await runs.spawn(auth, parent, body.child_agent_id, body.payload ?? null);
      },
    }),
  ];
}
