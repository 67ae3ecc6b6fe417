/**
 * Runs, schedules and spawns on the API side. A run is an ephemeral
 * AgentDeployment of the agent's active version that the operator executes
 * once; its payload is kept in MongoDB for the run to read back. The plan's
 * runs-in-flight limit is enforced here, for manual, scheduled and spawned
 * runs alike.
 */
import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import {
  isFinalState,
  runDeployment,
  LABELS,
  type Agent,
  type AgentDeployment,
} from '../../../crds/src/index.js';
import { nextRun } from '../../../common/cron.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import {
  AgentNotDeployed,
  AgentNotFound,
  AgentStateConflict,
  RunsInFlightExceeded,
  ScheduleNotSet,
  SpawnNotAllowed,
} from '../errors/catalogue.js';
import type { CustomResourceRepository } from '../store/custom-resources.js';
import type { RunPayloadDoc } from '../store/database.js';

/** RunAccepted. */
export interface RunAccepted {
  deployment_id: string;
  version: number;
  job_id: string;
}

/** ScheduleState. */
export interface ScheduleState {
  cron_paused: boolean;
  cron_next_run_at: string | null;
  changed: boolean;
}

/** The Run record. */
export interface RunRecord {
  id: string;
  trigger_source: 'cron' | 'manual';
  state: string;
  created_at: string;
  error_message: string | null;
  machine_started_at: string | null;
  machine_stopped_at: string | null;
  duration_seconds: number | null;
}

const iso = (v: string | Date | null | undefined) => (v ? new Date(v).toISOString() : null);

/** Shapes a run resource into the Run record. */
export function presentRun(d: AgentDeployment): RunRecord {
  const status = d.status ?? {};
  return {
    id: d.metadata.name ?? '',
    trigger_source: d.spec.triggerSource ?? 'manual',
    state: status.state ?? 'queued',
    created_at: iso(d.metadata.creationTimestamp) ?? new Date(0).toISOString(),
    error_message: status.errorMessage ?? null,
    machine_started_at: status.machineStartedAt ?? null,
    machine_stopped_at: status.machineStoppedAt ?? null,
    duration_seconds: status.durationSeconds ?? null,
  };
}

/** Run, schedule and spawn operations. */
export class RunService {
  constructor(
    private readonly deps: {
      agents: AgentService;
      deployments: CustomResourceRepository<'AgentDeployment'>;
      payloads: Collection<RunPayloadDoc>;
    },
  ) {}

  /**
   * The deployment serving the agent, or 409 AGENT_NOT_DEPLOYED. The Agent's
   * status names it; until the operator has written that status, the version
   * the agent adopted counts once its deployment is `active` (a client that
   * saw the deployment active and asks for a run at once is served).
   */
  private async serving(auth: AuthContext, agent: Agent): Promise<AgentDeployment> {
    const id = agent.status?.activeDeploymentId;
    const active =
      (agent.status?.deployed && id
        ? await this.deps.deployments.get(auth.tenant.namespace, id)
        : null) ?? (await this.adoptedActive(auth, agent));
    if (!active) {
      throw new AgentNotDeployed(
        `${agent.spec.name} has no active version to run; deploy it first.`,
        {
          fields: { current_state: agent.status?.status ?? 'pending' },
        },
      );
    }
    return active;
  }

  /** The deployment of the version the agent adopted, when it is active; null otherwise. */
  private async adoptedActive(auth: AuthContext, agent: Agent): Promise<AgentDeployment | null> {
    const version = agent.spec.targetVersion;
    if (version === null || version === undefined) return null;
    // Never what the operator's status rules out: an archived agent, or one whose app was lost.
    if (agent.spec.desiredState === 'archived' || agent.status?.failureCode) return null;
    const versions = await this.deps.deployments.list(
      auth.tenant.namespace,
      `${LABELS.agentId}=${agent.metadata.name ?? ''}`,
    );
    return (
      versions.find(
        (d) => !d.spec.ephemeral && d.spec.version === version && d.status?.state === 'active',
      ) ?? null
    );
  }

  private async inFlight(auth: AuthContext, agentId: string): Promise<number> {
    const runs = await this.deps.deployments.list(
      auth.tenant.namespace,
      `${LABELS.agentId}=${agentId}`,
    );
    return runs.filter((d) => d.spec.ephemeral && !isFinalState(d.status?.state)).length;
  }

  /** Starts a run of the agent's active version. */
  async run(
    auth: AuthContext,
    agent: Agent,
    payload: Record<string, unknown> | null,
    trigger: 'cron' | 'manual',
    spawnedBy: Agent | null = null,
  ): Promise<{ run: AgentDeployment; accepted: RunAccepted }> {
    const serving = await this.serving(auth, agent);
    const agentId = agent.metadata.name ?? '';
    const limit = auth.plan.runsInFlight;
    if ((await this.inFlight(auth, agentId)) >= limit) {
      throw new RunsInFlightExceeded(
        `${agent.spec.name} already has ${limit} run(s) in flight, the plan's limit.`,
        {
          fields: { field: 'runs_in_flight', allowed: limit, tier: auth.account.tier },
        },
      );
    }
    const id = randomUUID();
    const jobId = randomUUID();
    await this.deps.payloads.insertOne({
      _id: id,
      accountId: auth.account._id,
      environment: auth.tenant.environment,
      agentId,
      payload,
      createdAt: new Date(),
    });
    const run = runDeployment(agent, { id, serving, trigger, spawnedBy });
    try {
      await this.deps.deployments.create(run);
    } catch (err) {
      await this.deps.payloads.deleteOne({ _id: id }).catch(() => undefined);
      throw err;
    }
    const written = await this.deps.deployments.updateStatus(auth.tenant.namespace, id, (d) => {
      d.status = { state: 'queued', jobId, regions: run.spec.config.regions };
    });
    return {
      run: written ?? run,
      accepted: { deployment_id: id, version: serving.spec.version, job_id: jobId },
    };
  }

  /** The agent's run history (spawned runs excluded), newest first. */
  async history(auth: AuthContext, agent: Agent, limit: number, offset: number) {
    const all = (
      await this.deps.deployments.list(
        auth.tenant.namespace,
        `${LABELS.agentId}=${agent.metadata.name}`,
      )
    )
      .filter((d) => d.spec.ephemeral && !d.spec.spawnedByAgentId)
      .sort((a, b) =>
        String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
      );
    const items = all.slice(offset, offset + limit).map(presentRun);
    const next = offset + items.length;
    return {
      items,
      total: all.length,
      limit,
      offset,
      next_offset: next < all.length ? next : null,
    };
  }

  /** Pauses or resumes the schedule; idempotent (`changed` says whether anything changed). */
  async setSchedulePaused(
    auth: AuthContext,
    agent: Agent,
    paused: boolean,
  ): Promise<ScheduleState> {
    const schedule = agent.spec.schedule;
    if (!schedule)
      throw new ScheduleNotSet(`${agent.spec.name} has no schedule.`, {
        fields: { agent: agent.spec.name },
      });
    const current = agent.spec.schedulePaused ?? false;
    if (current === paused) {
      return {
        cron_paused: paused,
        cron_next_run_at: paused
          ? null
          : (agent.status?.cronNextRunAt ?? nextRun(schedule, new Date()).toISOString()),
        changed: false,
      };
    }
    const at = new Date();
    const updated = await this.deps.agents.writeSchedulePaused(
      auth,
      agent.metadata.name ?? '',
      paused,
      at,
    );
    if (!updated) throw new AgentNotFound(`No agent ${agent.spec.name}.`);
    return {
      cron_paused: paused,
      cron_next_run_at: paused ? null : nextRun(schedule, at).toISOString(),
      changed: true,
    };
  }

  /** Spawns a run of a `job` agent from `parent`, in the parent's region. */
  async spawn(
    auth: AuthContext,
    parent: Agent,
    childRef: string,
    payload: Record<string, unknown> | null,
  ) {
    if (!parent.spec.spawnEnabled) {
      throw new SpawnNotAllowed(`${parent.spec.name} does not have spawn_enabled.`, {
        fields: { reason: 'spawn_disabled' },
      });
    }
    // Any agent of the account, also with the parent's own key: allowed_workers decides.
    const child = await this.deps.agents.resolveWorker(auth, childRef);
    const allowed = parent.spec.allowedWorkers;
    if (
      allowed.length > 0 &&
      !allowed.includes(child.spec.name) &&
      !allowed.includes(child.metadata.name ?? '')
    ) {
      throw new SpawnNotAllowed(
        `${child.spec.name} is not in the allowed_workers of ${parent.spec.name}.`,
        {
          fields: { reason: 'not_allowed_worker' },
        },
      );
    }
    if (child.spec.agentType !== 'job') {
      throw new AgentStateConflict(
        `${child.spec.name} is a ${child.spec.agentType}; only job agents can be spawned.`,
        {
          fields: { current_state: child.spec.agentType },
        },
      );
    }
    const { run, accepted } = await this.run(auth, child, payload, 'manual', parent);
    return {
      spawn_id: accepted.deployment_id,
      job_id: accepted.job_id,
      child_agent_id: child.metadata.name ?? '',
      workspace: child.spec.workspaceName ?? null,
      region: parent.spec.regions[0] ?? 'local',
      status: run.status?.state ?? 'queued',
      estimated_start: 'immediate',
    };
  }
}
