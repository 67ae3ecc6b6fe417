/**
 * The pure part of the AgentDeployment reconciler: from a version, its
 * siblings and what the driver reports, the next step of `queued → building →
 * deploying → active | failed` and the status it writes. Unit-tested without a
 * cluster (agent-deployment.test.ts); the controller reads, asks these, acts.
 */
import type { AgentDeployment, AgentDeploymentStatus } from '../../../crds/src/index.js';
import type { ServingStatus, TaskStatus } from '../drivers/driver.js';
import { deploymentConditions, type FailureReason } from './agent-deployment-conditions.js';
import { byAge, newest, stateOf } from './views.js';

/** How soon a version in progress (or a run) is looked at again without an event. */
export const POLL_MS = 5000;

/** The states the reconciler ends a version in. */
export type FinishedState = 'failed' | 'superseded' | 'rolled_back';

/**
 * `changes` over the status `d` has, observed at its generation, with the
 * conditions that status makes (`failure` says why, when it ends failed).
 */
export function withStatus(
  d: AgentDeployment,
  changes: AgentDeploymentStatus,
  now: Date,
  failure?: FailureReason,
): AgentDeploymentStatus {
  const status = { ...d.status, ...changes };
  return {
    ...status,
    conditions: deploymentConditions(d, status, now, failure),
    observedGeneration: d.metadata.generation,
  };
}

/**
 * Whether a deployment in a final state still lacks the conditions of it (it
 * ended before the operator wrote conditions, or the API server rejected it):
 * the reconciler writes them once.
 */
export function lacksConditions(d: AgentDeployment): boolean {
  return Boolean(d.status) && !d.status?.conditions?.some((c) => c.type === 'Ready');
}

/**
 * Whether a deployment in this state may have freed a build slot: any version
 * in a state but waiting for one or holding one.
 */
export function holdsNoBuildSlot(d: AgentDeployment): boolean {
  return !d.spec.ephemeral && !['queued', 'building'].includes(stateOf(d));
}

/** The versions among `deployments` waiting for a build slot. */
export function waitingForSlot(deployments: readonly AgentDeployment[]): AgentDeployment[] {
  return deployments.filter((d) => stateOf(d) === 'queued' && !d.spec.ephemeral);
}

/** The error message of a version whose build was cancelled. */
export function cancelledMessage(d: AgentDeployment): string {
  return `Cancelled: ${d.spec.cancellationReason ?? 'cancelled by the user'}`;
}

/** The status changes that end a version in `state`, with `message` as its error when given. */
export function finishedStatus(
  state: FinishedState,
  message: string | null,
  now: Date,
): AgentDeploymentStatus {
  return {
    state,
    finishedAt: now.toISOString(),
    queuePosition: null,
    isServing: false,
    ...(message ? { errorMessage: message } : {}),
  };
}

/**
 * A queued version either starts building now (`status` is what to write
 * first), or waits at `queuePosition` (1 = next), and `status` is what to write
 * only when that changed (else null).
 */
export type QueueDecision =
  | { start: true; status: AgentDeploymentStatus }
  | { start: false; queuePosition: number; status: AgentDeploymentStatus | null };

/**
 * Where queued version `d` stands among every deployment the operator sees:
 * the oldest queued versions (not cancelled, not being deleted) take the build
 * slots that `buildConcurrency` leaves beside the builds running.
 */
export function queueDecision(
  d: AgentDeployment,
  deployments: readonly AgentDeployment[],
  buildConcurrency: number,
  now: Date,
): QueueDecision {
  const versions = deployments.filter((x) => !x.spec.ephemeral);
  const building = versions.filter((x) => stateOf(x) === 'building').length;
  const waiting = versions
    .filter(
      (x) =>
        stateOf(x) === 'queued' && !x.spec.cancellationRequested && !x.metadata.deletionTimestamp,
    )
    .sort(byAge);
  const index = waiting.findIndex((x) => x.metadata.name === d.metadata.name);
  const position = index < 0 ? waiting.length : index;
  const slots = buildConcurrency - building;
  if (position < slots) {
    return {
      start: true,
      status: { state: 'building', queuePosition: null, startedAt: now.toISOString() },
    };
  }
  const queuePosition = position - Math.max(slots, 0) + 1;
  const unchanged = d.status?.state === 'queued' && d.status.queuePosition === queuePosition;
  return {
    start: false,
    queuePosition,
    status: unchanged ? null : { state: 'queued', queuePosition },
  };
}

/** What a build's progress means for its version. */
export type BuildDecision =
  /** Status says building but the Job is gone (deleted, or the operator stopped between the two writes). */
  | { next: 'restart' }
  | { next: 'fail'; message: string; reason: FailureReason }
  | { next: 'deploy'; status: AgentDeploymentStatus }
  | { next: 'wait' };

/** The next step of a version whose build reports `build`. */
export function buildDecision(build: TaskStatus, now: Date): BuildDecision {
  switch (build.phase) {
    case 'missing':
      return { next: 'restart' };
    case 'failed':
      return {
        next: 'fail',
        message: `Build failed: ${build.message ?? 'unknown error'}`,
        reason: 'BuildFailed',
      };
    case 'succeeded':
      return {
        next: 'deploy',
        status: {
          state: 'deploying',
          builtAt: now.toISOString(),
          ...(build.imageSizeMb ? { imageSizeMb: build.imageSizeMb } : {}),
        },
      };
    default:
      return { next: 'wait' };
  }
}

/**
 * The first step of a version being deployed, before its workload is looked
 * at: superseded when a newer version is deploying or active, active at once
 * for a job (which has no workload), else it is up to the workload.
 */
export function deployingDecision(
  d: AgentDeployment,
  siblings: readonly AgentDeployment[],
): 'supersede' | 'activate' | 'ask-workload' {
  const newer = newest(
    [...siblings],
    (s) =>
      !s.spec.ephemeral &&
      s.spec.version > d.spec.version &&
      ['deploying', 'active'].includes(stateOf(s)),
  );
  if (newer) return 'supersede';
  return d.spec.config.agentType === 'job' ? 'activate' : 'ask-workload';
}

/** What the agent's workload means for version `d` being rolled out. */
export type WorkloadDecision =
  | { next: 'activate' }
  | { next: 'fail'; message: string; reason: FailureReason }
  | { next: 'wait' };

/**
 * The next step of version `d` given what serves its agent: active once the
 * workload runs it and is ready, failed when its rollout gave up; otherwise it
 * waits for the agent controller to roll it out.
 */
export function workloadDecision(d: AgentDeployment, serving: ServingStatus): WorkloadDecision {
  if (!serving.exists || serving.deploymentId !== d.metadata.name) return { next: 'wait' };
  if (serving.failed) {
    return {
      next: 'fail',
      message: `The new version did not become healthy: ${serving.failed}`,
      reason: 'RolloutFailed',
    };
  }
  return serving.ready ? { next: 'activate' } : { next: 'wait' };
}

/** The status of version `d` once it becomes the active one. */
export function activeStatus(d: AgentDeployment, now: Date): AgentDeploymentStatus {
  return {
    state: 'active',
    deployedAt: now.toISOString(),
    isServing: d.spec.config.agentType === 'service',
    canRedeploy: true,
  };
}

/**
 * The versions that stop being active when `d` becomes active, and the state
 * they end in: `rolled_back` when `d` is a rollback, else `superseded`.
 */
export function replacedBy(
  d: AgentDeployment,
  siblings: readonly AgentDeployment[],
): { versions: AgentDeployment[]; state: 'superseded' | 'rolled_back' } {
  return {
    versions: siblings.filter(
      (s) => !s.spec.ephemeral && s.metadata.name !== d.metadata.name && stateOf(s) === 'active',
    ),
    state: d.spec.rollbackOfVersion ? 'rolled_back' : 'superseded',
  };
}
