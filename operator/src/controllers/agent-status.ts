/**
 * The pure part of the Agent reconciler: from the agent, its deployments and
 * what serves it, the status the contract reports (status, deployed, url,
 * failure code, cron fields). Unit-tested without a cluster.
 */
import {
  ANNOTATIONS,
  type Agent,
  type AgentDeployment,
  type AgentStatus,
  type AgentStatusBlock,
} from '../../../crds/src/index.js';
import { nextRun } from '../../../common/cron.js';
import { newest, stateOf } from './views.js';

/** The versions that matter to an agent at one moment. */
export interface Versions {
  /** The highest version that is active. */
  active: AgentDeployment | undefined;
  /** A newer version being rolled out. */
  rolling: AgentDeployment | undefined;
  /** The highest version of all. */
  latest: AgentDeployment | undefined;
}

/** Picks active, rolling and latest among an agent's deployed versions (runs excluded). */
export function versionsOf(deployments: AgentDeployment[]): Versions {
  const versions = deployments.filter((d) => !d.spec.ephemeral);
  const active = newest(versions, (d) => stateOf(d) === 'active');
  const rolling = newest(
    versions,
    (d) => stateOf(d) === 'deploying' && d.spec.version > (active?.spec.version ?? 0),
  );
  return { active, rolling, latest: newest(versions, () => true) };
}

/** The contract's agent status for what the operator sees. */
export function agentStatusFor(agent: Agent, v: Versions, lost: boolean): AgentStatus {
  const desired = agent.spec.desiredState;
  if (desired === 'archived') return 'archived';
  if (lost) return 'failed';
  if (v.rolling) return 'deploying';
  if (v.active) {
    if (desired === 'paused') return 'paused';
    return usagePaused(agent) ? 'usage_paused' : 'running';
  }
  const latest = v.latest ? stateOf(v.latest) : null;
  if (latest === 'queued' || latest === 'building') return 'building';
  if (latest === 'deploying') return 'deploying';
  if (latest === 'failed') return 'failed';
  return 'pending';
}

/** Whether the API server paused the agent because its account is over a hard usage limit. */
export function usagePaused(agent: Pick<Agent, 'metadata'>): boolean {
  return Boolean(agent.metadata.annotations?.[ANNOTATIONS.usagePaused]);
}

/** The agent's address, when it is a deployed service (`port` when the edge is not on the default one). */
export function agentUrl(
  agent: Agent,
  deployed: boolean,
  scheme: string,
  domain: string,
  port?: number,
): string | null {
  if (!deployed || agent.spec.agentType !== 'service' || !agent.spec.addressLabel) return null;
  return `${scheme}://${agent.spec.addressLabel}.${domain}${port ? `:${port}` : ''}`;
}

/**
 * The next run of the schedule. It moves only when the expression changes,
 * the schedule is resumed (then counted from the resume, never backfilled), or
 * the stored time has passed; a paused or absent schedule has none.
 */
export function cronFields(
  agent: Agent,
  previous: AgentStatusBlock | undefined,
  now: Date,
): Pick<AgentStatusBlock, 'cronNextRunAt' | 'cronObservedSchedule'> {
  const schedule = agent.spec.schedule ?? null;
  if (!schedule) return { cronNextRunAt: null, cronObservedSchedule: null };
  if (agent.spec.schedulePaused) return { cronNextRunAt: null, cronObservedSchedule: schedule };
  const stored = previous?.cronNextRunAt ? new Date(previous.cronNextRunAt) : null;
  const resumedAt = agent.spec.scheduleResumedAt ? new Date(agent.spec.scheduleResumedAt) : null;
  let base: Date | null = null;
  if (previous?.cronObservedSchedule !== schedule) base = now;
  else if (!stored) base = resumedAt ?? now;
  else if (resumedAt && stored.getTime() <= resumedAt.getTime()) base = resumedAt;
  else if (stored.getTime() <= now.getTime()) base = now;
  let next = base ? nextRun(schedule, base) : stored;
  if (next && next.getTime() <= now.getTime()) next = nextRun(schedule, now);
  return { cronNextRunAt: next ? next.toISOString() : null, cronObservedSchedule: schedule };
}

/** The schedule's bookkeeping fields of the Agent status. */
export type CronLastRun = Pick<
  AgentStatusBlock,
  'cronLastRunAt' | 'cronLastStatus' | 'cronLastReason'
>;

/**
 * The schedule's bookkeeping, from the runs its firings started (`cron`
 * runs): when the newest one was fired, its state (queued, deploying, then
 * completed or failed), and why it failed. The operator is its one writer.
 * Values already recorded stay when no newer cron run is left to read (none
 * yet, or the newest collected).
 */
export function cronLastRun(
  deployments: AgentDeployment[],
  previous: AgentStatusBlock | undefined,
): CronLastRun {
  const recorded: CronLastRun = {
    cronLastRunAt: previous?.cronLastRunAt ?? null,
    cronLastStatus: previous?.cronLastStatus ?? null,
    cronLastReason: previous?.cronLastReason ?? null,
  };
  const last = deployments
    .filter((d) => d.spec.ephemeral && d.spec.triggerSource === 'cron')
    .sort(
      (a, b) =>
        firedAt(b) - firedAt(a) || (b.metadata.name ?? '').localeCompare(a.metadata.name ?? ''),
    )[0];
  if (!last) return recorded;
  const at = firedAt(last);
  if (recorded.cronLastRunAt && Date.parse(recorded.cronLastRunAt) > at) return recorded;
  return {
    cronLastRunAt: new Date(at).toISOString(),
    cronLastStatus: stateOf(last),
    cronLastReason: last.status?.errorMessage ?? null,
  };
}

/** When a run was fired: its creation (the request the firing made). */
function firedAt(run: AgentDeployment): number {
  const created = run.metadata.creationTimestamp;
  return created ? new Date(created).getTime() : 0;
}
