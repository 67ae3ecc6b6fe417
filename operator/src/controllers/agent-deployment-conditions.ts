/**
 * The conditions of an AgentDeployment, derived from the status the reconciler
 * writes (pure; unit-tested in agent-deployment-conditions.test.ts), and the
 * Events its transitions make.
 *
 * - `Ready`: True while a version is active (reason Active) or once a run
 *   completed (Completed); otherwise False, its reason where the version or run
 *   stands: Queued, Building, Built (rolling out), Running (a run), or how it
 *   ended: BuildFailed, RolloutFailed, Cancelled, RunFailed, NotRun, Failed,
 *   Superseded, RolledBack.
 * - `Built` (versions only): Unknown while Queued or Building, True once the
 *   build succeeded (BuildSucceeded), False when the version failed before
 *   (BuildFailed, Cancelled, Failed).
 */
import type { AgentDeployment, AgentDeploymentStatus, Condition } from '../../../crds/src/index.js';
import { setCondition } from '../conditions.js';
import { eventOf, transitionOf, type EventNote } from '../events/transitions.js';
import type { ConditionChange } from './agent-decisions.js';

/** Why a version or run failed, as the `Ready` reason says it. */
export type FailureReason =
  /** The build Job (or process) failed. */
  | 'BuildFailed'
  /** The new version's workload did not become healthy. */
  | 'RolloutFailed'
  /** The owner cancelled it before it finished. */
  | 'Cancelled'
  /** A run's machine failed. */
  | 'RunFailed'
  /** A run that never started: no active version, or the account over a usage limit. */
  | 'NotRun'
  /** Failed for a reason the operator did not record (a deploy the API server rejected). */
  | 'Failed';

const FAILURE_REASONS: ReadonlySet<string> = new Set<FailureReason>([
  'BuildFailed',
  'RolloutFailed',
  'Cancelled',
  'RunFailed',
  'NotRun',
  'Failed',
]);

/** `Ready` reasons recorded as Warning Events (a cancellation is the owner's own doing). */
const WARNING_REASONS: ReadonlySet<string> = new Set(
  [...FAILURE_REASONS].filter((r) => r !== 'Cancelled'),
);

/**
 * The failure reason of a failed deployment: `failure` when the reconciler
 * knows it, else the one its `Ready` already records, else Failed.
 */
function failureOf(d: AgentDeployment, failure: FailureReason | undefined): string {
  if (failure) return failure;
  const ready = d.status?.conditions?.find((c) => c.type === 'Ready');
  return ready && FAILURE_REASONS.has(ready.reason) ? ready.reason : 'Failed';
}

/** `Ready` of `d` once its status is `status`. */
export function deploymentReady(
  d: AgentDeployment,
  status: AgentDeploymentStatus,
  failure?: FailureReason,
): ConditionChange {
  const v = d.spec.version;
  const run = d.spec.ephemeral;
  const state = status.state ?? 'queued';
  const of = (ready: boolean, reason: string, message: string): ConditionChange => ({
    type: 'Ready',
    status: ready ? 'True' : 'False',
    reason,
    message,
    observedGeneration: d.metadata.generation,
  });
  switch (state) {
    case 'queued':
      if (run) return of(false, 'Queued', 'The run waits to start.');
      return of(
        false,
        'Queued',
        status.queuePosition
          ? `Version ${v} waits for a build slot (position ${status.queuePosition}).`
          : `Version ${v} waits for a build slot.`,
      );
    case 'building':
      return of(false, 'Building', `Building version ${v}.`);
    case 'deploying':
      return run
        ? of(false, 'Running', `The run of version ${v} is running.`)
        : of(false, 'Built', `Version ${v} is built; rolling it out.`);
    case 'active':
      return of(
        true,
        'Active',
        d.spec.config.agentType === 'service'
          ? `Version ${v} is active and serving.`
          : `Version ${v} is active: runs use it.`,
      );
    case 'completed':
      return of(true, 'Completed', 'The run completed.');
    case 'superseded':
      return of(false, 'Superseded', `Version ${v} was replaced by a newer version.`);
    case 'rolled_back':
      return of(false, 'RolledBack', `Version ${v} was replaced by a rollback.`);
    case 'failed':
      return of(
        false,
        failureOf(d, failure),
        status.errorMessage ?? (run ? 'The run failed.' : `Version ${v} failed.`),
      );
  }
}

/** `Built` of version `d` once its status is `status` (none for a run). */
export function deploymentBuilt(
  d: AgentDeployment,
  status: AgentDeploymentStatus,
  failure?: FailureReason,
): ConditionChange | null {
  if (d.spec.ephemeral) return null;
  const state = status.state ?? 'queued';
  const of = (s: Condition['status'], reason: string, message: string): ConditionChange => ({
    type: 'Built',
    status: s,
    reason,
    message,
    observedGeneration: d.metadata.generation,
  });
  if (status.builtAt) return of('True', 'BuildSucceeded', 'The build succeeded.');
  if (state === 'queued') return of('Unknown', 'Queued', 'The build has not started.');
  if (state === 'building') return of('Unknown', 'Building', 'The build is running.');
  if (state === 'failed') {
    return of('False', failureOf(d, failure), status.errorMessage ?? 'The build did not succeed.');
  }
  return of('Unknown', 'NotRecorded', 'No build time was recorded for this version.');
}

/** The conditions of `d` once its status is `status`, transition times moved at `now`. */
export function deploymentConditions(
  d: AgentDeployment,
  status: AgentDeploymentStatus,
  now: Date,
  failure?: FailureReason,
): Condition[] {
  let conditions = setCondition(status.conditions, deploymentReady(d, status, failure), now);
  const built = deploymentBuilt(d, status, failure);
  if (built) conditions = setCondition(conditions, built, now);
  return conditions;
}

/**
 * The Events of a deployment's status write: each change of `Ready`
 * (Queued, Building, Built, Active, Superseded, ...; a failure as a Warning).
 */
export function deploymentEvents(
  previous: readonly Condition[] | undefined,
  next: readonly Condition[] | undefined,
): EventNote[] {
  const ready = transitionOf(previous, next, 'Ready');
  return ready ? [eventOf(ready.to, WARNING_REASONS.has(ready.to.reason))] : [];
}
