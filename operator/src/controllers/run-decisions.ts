/**
 * The pure part of the run reconciler: from a run, its agent's versions and
 * what its machine reports, the next step of `queued → deploying → completed |
 * failed` and the status it writes. Unit-tested without a cluster (run.test.ts).
 */
import type { AgentDeployment, AgentDeploymentStatus } from '../../../crds/src/index.js';
import type { TaskStatus } from '../drivers/driver.js';
import { versionsOf } from './agent-status.js';
import { stateOf } from './views.js';

/** The error of a run whose agent has no version to run. */
export const NO_ACTIVE_VERSION = 'The agent has no active version to run.';

/**
 * How a run starts, given every deployment of its agent: it runs the active
 * version (`serving`), and a queued run starts its machine now; with no active
 * version it fails.
 */
export type RunStart =
  | { next: 'fail'; message: string }
  | { next: 'start'; serving: AgentDeployment; status: AgentDeploymentStatus }
  | { next: 'watch'; serving: AgentDeployment };

/** The first step of reconciling `run`, which is not finished yet. */
export function runStart(
  run: AgentDeployment,
  deployments: readonly AgentDeployment[],
  now: Date,
): RunStart {
  const serving = versionsOf([...deployments]).active;
  if (!serving) return { next: 'fail', message: NO_ACTIVE_VERSION };
  if (stateOf(run) !== 'queued') return { next: 'watch', serving };
  return {
    next: 'start',
    serving,
    status: { state: 'deploying', startedAt: now.toISOString(), queuePosition: null },
  };
}

/** What the run's machine reports means for the run. */
export type RunProgress =
  /** The machine is gone before it finished (deleted, or never started): start it again. */
  | { next: 'restart' }
  | { next: 'finish'; state: 'completed' | 'failed'; message: string | null }
  /** Still running; `status` records when its machine started, the first time it is known. */
  | { next: 'wait'; status: AgentDeploymentStatus | null };

/** The next step of a started `run` whose machine reports `task`. */
export function runProgress(run: AgentDeployment, task: TaskStatus): RunProgress {
  if (task.phase === 'missing') return { next: 'restart' };
  if (task.phase === 'succeeded' || task.phase === 'failed') {
    return {
      next: 'finish',
      state: task.phase === 'succeeded' ? 'completed' : 'failed',
      message: task.message ?? null,
    };
  }
  const recordStart = task.startedAt && !run.status?.machineStartedAt;
  return { next: 'wait', status: recordStart ? { machineStartedAt: task.startedAt } : null };
}

/**
 * The status that ends `run` in `state`: when its machine started and stopped
 * (as the machine reports them, else as recorded, else now), how many whole
 * seconds it ran, and the error when there is one.
 */
export function runFinishedStatus(
  run: AgentDeployment,
  state: 'completed' | 'failed',
  message: string | null,
  now: Date,
  task?: Pick<TaskStatus, 'startedAt' | 'finishedAt'>,
): AgentDeploymentStatus {
  const started = run.status?.machineStartedAt ?? task?.startedAt ?? null;
  const stopped = task?.finishedAt ?? (started ? now.toISOString() : null);
  const duration =
    started && stopped
      ? Math.max(0, Math.round((Date.parse(stopped) - Date.parse(started)) / 1000))
      : null;
  return {
    state,
    finishedAt: now.toISOString(),
    machineStartedAt: started,
    machineStoppedAt: stopped,
    durationSeconds: duration,
    ...(message ? { errorMessage: message } : {}),
  };
}
