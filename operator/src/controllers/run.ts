/**
 * Reconciles a run (an ephemeral AgentDeployment): it runs the agent's active
 * version once, `queued → deploying` while its machine runs, then `completed`
 * or `failed`, with the machine's start and stop times and the duration.
 */
import {
  isFinalState,
  type Agent,
  type AgentDeployment,
  type AgentDeploymentStatus,
} from '../../../crds/src/index.js';
import type { TaskStatus, WorkloadDriver } from '../drivers/driver.js';
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import { POLL_MS, withStatus } from './agent-deployment-decisions.js';
import { deploymentEvents, type FailureReason } from './agent-deployment-conditions.js';
import type { EventSink } from '../events/event-recorder.js';
import { runFinishedStatus, runProgress, runStart } from './run-decisions.js';
import { stateOf, type ClusterView } from './views.js';
import { usagePaused } from './agent-status.js';
import { finishedTaskEvents, type UsageReports } from '../usage-reporter.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';

/** The run reconciler. */
export class RunController {
  constructor(
    private readonly deps: {
      resources: CustomResourceClient;
      /** Where the run's agent is read from (its cache). */
      cached: ResourceAccess;
      driver: WorkloadDriver;
      view: ClusterView;
      /** Where each finished run's machine time is reported. */
      usage?: UsageReports;
      /** Where the runs' transitions are recorded as Events. */
      events: EventSink;
      now?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Reconciles `run`, as just read by the AgentDeployment controller (which
   * handles its deletion).
   */
  async reconcile(run: AgentDeployment): Promise<ReconcileResult> {
    const { driver } = this.deps;
    const namespace = run.metadata.namespace ?? '';
    if (isFinalState(stateOf(run))) return;
    const agent = await this.deps.cached.get('Agent', namespace, run.spec.agentId);
    if (!agent) return;
    const deployments = this.deps.view.deploymentsOf(namespace, run.spec.agentId);
    const start = runStart(run, deployments, this.now());
    if (start.next === 'fail') return this.finish(run, 'failed', start.message, 'NotRun');
    if (start.next === 'start' && usagePaused(agent)) {
      return this.finish(
        run,
        'failed',
        'not run: the account is over a usage limit of its plan this month (the agent is usage_paused)',
        'NotRun',
      );
    }
    if (start.next === 'start') {
      await this.write(run, start.status);
      await driver.startRun(agent, run, start.serving);
      return { requeueAfter: POLL_MS };
    }
    const task = await driver.runStatus(run);
    const progress = runProgress(run, task);
    if (progress.next === 'restart') await driver.startRun(agent, run, start.serving);
    else if (progress.next === 'finish')
      return this.finish(
        run,
        progress.state,
        progress.message,
        progress.state === 'failed' ? 'RunFailed' : undefined,
        task,
        agent,
      );
    else if (progress.status) await this.write(run, progress.status);
    return { requeueAfter: POLL_MS };
  }

  private async finish(
    run: AgentDeployment,
    state: 'completed' | 'failed',
    message: string | null,
    failure?: FailureReason,
    task?: TaskStatus,
    agent?: Agent,
  ): Promise<void> {
    const status = runFinishedStatus(run, state, message, this.now(), task);
    await this.write(run, status, failure);
    // After the status write: a write that conflicts is retried, and reports the run then.
    if (agent && this.deps.usage) {
      for (const event of finishedTaskEvents(
        agent,
        run,
        'run',
        status.machineStartedAt,
        status.machineStoppedAt,
      ))
        this.deps.usage.report(event);
    }
  }

  /** Writes `changes` and the conditions they make, then records the transitions as Events. */
  private async write(
    run: AgentDeployment,
    changes: AgentDeploymentStatus,
    failure?: FailureReason,
  ): Promise<void> {
    const status = withStatus(run, changes, this.now(), failure);
    await this.deps.resources.writeStatus('AgentDeployment', run, status);
    for (const event of deploymentEvents(run.status?.conditions, status.conditions))
      this.deps.events.record({ kind: 'AgentDeployment', metadata: run.metadata }, event);
  }
}
