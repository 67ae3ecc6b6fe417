/**
 * Reconciles a run (an ephemeral AgentDeployment): it runs the agent's active
 * version once, `queued → deploying` while its machine runs, then `completed`
 * or `failed`, with the machine's start and stop times and the duration.
 */
import {
  isFinalState,
  type AgentDeployment,
  type AgentDeploymentStatus,
} from '../../../crds/src/index.js';
import type { WorkloadDriver } from '../drivers/driver.js';
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import { versionsOf } from './agent-status.js';
import { stateOf, type ClusterView } from './views.js';

const POLL_MS = 5000;

/** The run reconciler. */
export class RunController {
  constructor(
    private readonly deps: {
      resources: CustomResourceClient;
      driver: WorkloadDriver;
      view: ClusterView;
    },
  ) {}

  /**
   * Reconciles `run`, as just read by the AgentDeployment controller (which
   * handles its deletion).
   */
  async reconcile(run: AgentDeployment): Promise<ReconcileResult> {
    const { resources, driver } = this.deps;
    const namespace = run.metadata.namespace ?? '';
    if (isFinalState(stateOf(run))) return;
    const agent = await resources.get('Agent', namespace, run.spec.agentId);
    if (!agent) return;
    const serving = versionsOf(this.deps.view.deploymentsOf(namespace, run.spec.agentId)).active;
    if (!serving) {
      await this.finish(run, 'failed', 'The agent has no active version to run.');
      return;
    }
    if (stateOf(run) === 'queued') {
      await this.write(run, {
        state: 'deploying',
        startedAt: new Date().toISOString(),
        queuePosition: null,
      });
      await driver.startRun(agent, run, serving);
      return { requeueAfter: POLL_MS };
    }
    const task = await driver.runStatus(run);
    if (task.phase === 'missing') {
      await driver.startRun(agent, run, serving);
      return { requeueAfter: POLL_MS };
    }
    if (task.phase === 'succeeded' || task.phase === 'failed') {
      await this.finish(
        run,
        task.phase === 'succeeded' ? 'completed' : 'failed',
        task.message ?? null,
        task,
      );
      return;
    }
    if (task.startedAt && !run.status?.machineStartedAt)
      await this.write(run, { machineStartedAt: task.startedAt });
    return { requeueAfter: POLL_MS };
  }

  private async finish(
    run: AgentDeployment,
    state: 'completed' | 'failed',
    message: string | null,
    task?: { startedAt?: string; finishedAt?: string },
  ): Promise<void> {
    const started = run.status?.machineStartedAt ?? task?.startedAt ?? null;
    const stopped = task?.finishedAt ?? (started ? new Date().toISOString() : null);
    const duration =
      started && stopped
        ? Math.max(0, Math.round((Date.parse(stopped) - Date.parse(started)) / 1000))
        : null;
    await this.write(run, {
      state,
      finishedAt: new Date().toISOString(),
      machineStartedAt: started,
      machineStoppedAt: stopped,
      durationSeconds: duration,
      ...(message ? { errorMessage: message } : {}),
    });
  }

  private async write(run: AgentDeployment, changes: AgentDeploymentStatus): Promise<void> {
    await this.deps.resources.writeStatus('AgentDeployment', run, {
      ...run.status,
      ...changes,
      observedGeneration: run.metadata.generation,
    });
  }
}
