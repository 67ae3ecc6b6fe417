/**
 * The pure part of the Agent reconciler's work on what runs an agent: whether
 * its workload was lost, how many replicas it should have (none while paused
 * or idle), the conditions it reports, the whole status block, and when to
 * look again. Unit-tested without a cluster (agent.test.ts); the status fields
 * the contract derives from deployments are in agent-status.ts.
 */
import {
  ANNOTATIONS,
  type Agent,
  type AgentDeployment,
  type AgentStatus,
  type AgentStatusBlock,
  type Condition,
} from '../../../crds/src/index.js';
import { setCondition } from '../conditions.js';
import { eventOf, transitionOf, type EventNote } from '../events/transitions.js';
import type { OperatorConfig } from '../config.js';
import type { ServingStatus } from '../drivers/driver.js';
import {
  agentStatusFor,
  agentUrl,
  cronFields,
  cronLastRun,
  usagePaused,
  type Versions,
} from './agent-status.js';

/** A condition as the reconciler sets it (setCondition adds the transition time). */
export type ConditionChange = Omit<Condition, 'lastTransitionTime'>;

/** Why an agent is failed when its workload vanished. */
export const LOST_MESSAGE =
  'The compute plane has no app for this agent. Its code, secrets and address are kept; redeploy to restore it.';

/**
 * Whether the workload of the active version vanished by itself: the operator
 * saw it exist (`workloadVersion`), nothing newer is rolling out, and now it
 * is gone. Archiving clears `workloadVersion`, so a removal on purpose is no loss.
 */
export function isLost(agent: Agent, versions: Versions, current: ServingStatus): boolean {
  if (versions.rolling || current.exists || !versions.active) return false;
  return agent.status?.workloadVersion === versions.active.spec.version;
}

/** Whether a service is idle past its timeout, and if not, for how much longer it may be. */
export interface Idleness {
  idle: boolean;
  remainingMs: number | null;
}

/**
 * How long a service has been idle: since its last request (the edge's
 * annotation), its active version's deployment, or now while a version rolls
 * out, whichever is latest. `keep_alive` or a zero timeout never idles.
 */
export function idleFor(agent: Agent, versions: Versions, now: Date): Idleness {
  if (agent.spec.keepAlive || agent.spec.idleTimeoutMinutes <= 0)
    return { idle: false, remainingMs: null };
  const marks = [
    agent.metadata.annotations?.[ANNOTATIONS.lastActivity],
    versions.active?.status?.deployedAt ?? undefined,
    versions.rolling ? now.toISOString() : undefined,
  ]
    .filter((v): v is string => Boolean(v))
    .map((v) => new Date(v).getTime());
  const last = marks.length > 0 ? Math.max(...marks) : now.getTime();
  const remaining = last + agent.spec.idleTimeoutMinutes * 60_000 - now.getTime();
  return remaining <= 0
    ? { idle: true, remainingMs: null }
    : { idle: false, remainingMs: remaining };
}

/**
 * The replicas a service's workload should run (none while paused or idle),
 * and when to look again: when a running one would become idle.
 */
export function serviceReplicas(
  agent: Agent,
  idle: Idleness,
): { replicas: 0 | 1; requeueAfter: number | undefined } {
  const replicas = agent.spec.desiredState === 'paused' || usagePaused(agent) || idle.idle ? 0 : 1;
  return {
    replicas,
    requeueAfter: replicas === 1 && idle.remainingMs !== null ? idle.remainingMs : undefined,
  };
}

/** Whether the schedule's CronJob is suspended: the agent or its schedule is paused. */
export function scheduleSuspended(agent: Agent): boolean {
  return (
    agent.spec.desiredState === 'paused' || usagePaused(agent) || Boolean(agent.spec.schedulePaused)
  );
}

/**
 * `WorkloadAvailable` for a service whose workload, after the apply, is
 * `available` (runs `serving` and is ready) with `replicas`.
 */
export function workloadCondition(
  agent: Agent,
  serving: AgentDeployment,
  available: boolean,
  replicas: number,
): ConditionChange {
  return {
    type: 'WorkloadAvailable',
    status: available ? 'True' : 'False',
    reason: available ? (replicas === 0 ? 'ScaledToZero' : 'Available') : 'RollingOut',
    message: available
      ? `Serving version ${serving.spec.version}.`
      : `Rolling out version ${serving.spec.version}.`,
    observedGeneration: agent.metadata.generation,
  };
}

/** `WorkloadAvailable` of an archived agent: removed on purpose. */
export function archivedCondition(agent: Agent): ConditionChange {
  return {
    type: 'WorkloadAvailable',
    status: 'False',
    reason: 'Archived',
    message: 'The agent is archived.',
    observedGeneration: agent.metadata.generation,
  };
}

/** The `Ready` reason of each agent status (CamelCase, as a condition's reason is). */
export const READY_REASONS: Record<AgentStatus, string> = {
  pending: 'Pending',
  building: 'Building',
  deploying: 'Deploying',
  running: 'Running',
  failed: 'Failed',
  stopped: 'Stopped',
  paused: 'Paused',
  usage_paused: 'UsagePaused',
  suspended: 'Suspended',
  archived: 'Archived',
  deleting: 'Deleting',
  deleted: 'Deleted',
};

/** The `Ready` reason of an agent whose workload vanished (its status is failed). */
export const WORKLOAD_LOST = 'WorkloadLost';

/** `Ready`: True while the agent is running; its reason is the status (or the loss) in CamelCase. */
export function readyCondition(agent: Agent, status: AgentStatus, lost: boolean): ConditionChange {
  return {
    type: 'Ready',
    status: status === 'running' ? 'True' : 'False',
    reason: lost ? WORKLOAD_LOST : READY_REASONS[status],
    message: lost ? LOST_MESSAGE : `The agent is ${status}.`,
    observedGeneration: agent.metadata.generation,
  };
}

/** `Ready` reasons recorded as Warning Events: the agent cannot serve and the owner should act. */
const WARNING_REASONS = new Set(['Failed', WORKLOAD_LOST, 'UsagePaused']);

/**
 * The Events of an agent's status write, from its conditions before and
 * after: each change of `Ready` (Building, Deploying, Running, Paused,
 * Failed, WorkloadLost, ...), a running service scaled to zero when idle
 * (ScaledToZero: also when it became running in the same write, idle at
 * once), and one that stays running scaled up again (Woken; a resume from a
 * pause is its Ready event, Running).
 */
export function agentEvents(
  previous: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
): EventNote[] {
  const events: EventNote[] = [];
  const ready = transitionOf(previous, next, 'Ready');
  if (ready) events.push(eventOf(ready.to, WARNING_REASONS.has(ready.to.reason)));
  const running = (list: readonly Condition[] | undefined) =>
    list?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const workload = transitionOf(previous, next, 'WorkloadAvailable');
  if (!workload || !running(next)) return events;
  if (workload.to.reason === 'ScaledToZero') {
    events.push({
      type: 'Normal',
      reason: 'ScaledToZero',
      note: 'Idle past its timeout: scaled to zero replicas until the next request.',
    });
  } else if (workload.from?.reason === 'ScaledToZero' && running(previous)) {
    events.push({ type: 'Normal', reason: 'Woken', note: 'Scaled up from zero replicas.' });
  }
  return events;
}

/** What the operator found on the compute plane, for the status block. */
export interface Observed {
  versions: Versions;
  /** Every deployment of the agent, runs included (for the cron bookkeeping). */
  deployments: AgentDeployment[];
  lost: boolean;
  /** Where the edge sends the agent's traffic, while it serves. */
  endpoint: string | null;
  /** The version the operator last saw its workload run. */
  workloadVersion: number | null;
  /** The conditions so far (`Ready` is set here). */
  conditions: Condition[] | undefined;
  /** When to look again for the workload's sake (idleness), if at all. */
  requeueAfter: number | undefined;
}

/**
 * The status block the contract reports for `agent`, and when to reconcile
 * again (the workload's reason, or just after the schedule's next run; never
 * sooner than a second).
 */
export function agentStatusBlock(
  agent: Agent,
  observed: Observed,
  cfg: Pick<OperatorConfig, 'agentDomain' | 'agentScheme' | 'agentPort'>,
  now: Date,
): { status: AgentStatusBlock; requeueAfter: number | undefined } {
  const { versions, lost } = observed;
  const status = agentStatusFor(agent, versions, lost);
  const deployed = Boolean(versions.active) && agent.spec.desiredState !== 'archived' && !lost;
  const cron = cronFields(agent, agent.status, now);
  let requeueAfter = observed.requeueAfter;
  if (cron.cronNextRunAt) {
    const untilNext = new Date(cron.cronNextRunAt).getTime() - now.getTime() + 1000;
    requeueAfter = Math.min(requeueAfter ?? untilNext, untilNext);
  }
  const conditions = setCondition(observed.conditions, readyCondition(agent, status, lost), now);
  const next: AgentStatusBlock = {
    ...agent.status,
    ...cron,
    ...cronLastRun(observed.deployments, agent.status),
    observedGeneration: agent.metadata.generation,
    conditions,
    status,
    deployed,
    url: agentUrl(agent, deployed, cfg.agentScheme, cfg.agentDomain, cfg.agentPort),
    endpoint: observed.endpoint,
    activeVersion: versions.active?.spec.version ?? null,
    activeDeploymentId: versions.active?.metadata.name ?? null,
    workloadVersion: observed.workloadVersion,
    failureMessage: lost ? LOST_MESSAGE : null,
    regionsTotal: agent.spec.regions.length,
    regionsReady: deployed ? agent.spec.regions.length : 0,
  };
  if (lost) next.failureCode = 'app_lost_on_provider';
  else delete next.failureCode;
  return {
    status: next,
    requeueAfter: requeueAfter === undefined ? undefined : Math.max(requeueAfter, 1000),
  };
}

/** Whether `next` differs from the status the agent has (else nothing is written). */
export function statusChanged(agent: Agent, next: AgentStatusBlock): boolean {
  return JSON.stringify(next) !== JSON.stringify(agent.status);
}
