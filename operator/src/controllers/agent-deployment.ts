/**
 * Reconciles an AgentDeployment through `queued → building → deploying →
 * active | failed`. Builds wait in a queue limited to the configured number of
 * concurrent builds (oldest first, with `queue_position`); a cancelled one
 * fails with its reason; a version becomes active when its workload serves
 * it, and then the version it replaces becomes `superseded` (or
 * `rolled_back`, when the new one is a rollback). Runs (ephemeral
 * deployments) are reconciled by the run controller.
 */
import {
  isFinalState,
  type Agent,
  type AgentDeployment,
  type AgentDeploymentStatus,
} from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { OperatorConfig } from '../config.js';
import type { TaskStatus, WorkloadDriver } from '../drivers/driver.js';
import { finishedTaskEvents, type UsageReports } from '../usage-reporter.js';
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import {
  CHILD_SOURCES,
  refOf,
  watchFor,
  watchOwned,
  type Controller,
  type Enqueue,
  type ObjectRef,
  type Watch,
} from '../control-loop/controller.js';
import type { EventSink } from '../events/event-recorder.js';
import type { RunController } from './run.js';
import { deploymentEvents, type FailureReason } from './agent-deployment-conditions.js';
import {
  activeStatus,
  buildDecision,
  cancelledMessage,
  deployingDecision,
  finishedStatus,
  holdsNoBuildSlot,
  lacksConditions,
  POLL_MS,
  queueDecision,
  replacedBy,
  waitingForSlot,
  withStatus,
  workloadDecision,
  type FinishedState,
} from './agent-deployment-decisions.js';
import { stateOf, type ClusterView } from './views.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';

/** The AgentDeployment reconciler: versions here, runs by the run controller. */
export class AgentDeploymentController implements Controller {
  readonly kind = 'AgentDeployment';

  /**
   * Its own objects and the Jobs and Deployments they own; and when a deployment
   * leaves (or never held) a build slot, every queued one, since one may start now.
   */
  readonly watches: readonly Watch[] = [
    watchFor('agentdeployments'),
    {
      source: 'agentdeployments',
      map: (d) =>
        holdsNoBuildSlot(d) ? waitingForSlot(this.deps.view.deployments()).map(refOf) : [],
    },
    ...watchOwned('AgentDeployment', CHILD_SOURCES),
  ];

  constructor(
    private readonly deps: {
      resources: CustomResourceClient;
      /** Where the agent of a deployment is read from (its cache). */
      cached: ResourceAccess;
      driver: WorkloadDriver;
      view: ClusterView;
      cfg: Pick<OperatorConfig, 'buildConcurrency'>;
      runs: RunController;
      enqueue: Enqueue;
      log: Logger;
      /** Where each finished build's time is reported. */
      usage?: UsageReports;
      /** Where the deployments' transitions are recorded as Events. */
      events: EventSink;
      now?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Reconciles the AgentDeployment `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const { resources, driver, enqueue } = this.deps;
    const d = await resources.get('AgentDeployment', namespace, name);
    if (!d || d.metadata.deletionTimestamp) {
      // Deleted (with its agent, or a run collected by the retention policy): a version or a
      // run alike, the driver removes what it kept for it.
      await driver.forgetDeployment(namespace, name);
      return;
    }
    const state = stateOf(d);
    if (isFinalState(state) && lacksConditions(d)) {
      // Ended before conditions were written (or rejected by the API server): written once,
      // without Events, which would repeat old news for every such object after an upgrade.
      await this.setStatus(d, {}, undefined, false);
      return;
    }
    if (d.spec.ephemeral) return this.deps.runs.reconcile(d);
    if (isFinalState(state)) return;
    const agent = await this.deps.cached.get('Agent', namespace, d.spec.agentId);
    if (!agent) return;

    if (d.spec.cancellationRequested) {
      await driver.cancelBuild(d);
      await this.finish(d, 'failed', cancelledMessage(d), 'Cancelled');
      return;
    }

    switch (state) {
      case 'queued':
        return this.queued(agent, d);
      case 'building': {
        const task = await driver.buildStatus(d);
        const build = buildDecision(task, this.now());
        if (build.next === 'restart') await driver.startBuild(agent, d);
        else if (build.next === 'fail') {
          await this.finish(d, 'failed', build.message, build.reason);
          this.reportBuild(agent, d, task);
          return;
        } else if (build.next === 'deploy') {
          await this.setStatus(d, build.status);
          this.reportBuild(agent, d, task);
          return;
        }
        return { requeueAfter: POLL_MS };
      }
      case 'deploying': {
        const siblings = this.deps.view.deploymentsOf(namespace, d.spec.agentId);
        const first = deployingDecision(d, siblings);
        if (first === 'supersede') return this.finish(d, 'superseded', null);
        if (first === 'activate') return this.activate(d, siblings);
        const next = workloadDecision(d, await driver.serviceStatus(agent));
        if (next.next === 'fail') return this.finish(d, 'failed', next.message, next.reason);
        if (next.next === 'activate') return this.activate(d, siblings);
        // The agent controller rolls the workload out; its progress brings this deployment back.
        enqueue('Agent', { namespace, name: d.spec.agentId });
        return { requeueAfter: POLL_MS };
      }
    }
    return;
  }

  /** Starts the build when a slot is free, else records the queue position. */
  private async queued(agent: Agent, d: AgentDeployment): Promise<ReconcileResult> {
    const { view, cfg, driver } = this.deps;
    const decision = queueDecision(d, view.deployments(), cfg.buildConcurrency, this.now());
    if (!decision.start) {
      if (decision.status) await this.setStatus(d, decision.status);
      return { requeueAfter: POLL_MS * 2 };
    }
    // The status write first: if it conflicts, no Job was started; the Job's name makes a retry idempotent.
    await this.setStatus(d, decision.status);
    await driver.startBuild(agent, d);
    return { requeueAfter: POLL_MS };
  }

  /** Makes `d` the active version; the active one before it is superseded or rolled back. */
  private async activate(
    d: AgentDeployment,
    siblings: AgentDeployment[],
  ): Promise<ReconcileResult> {
    await this.setStatus(d, activeStatus(d, this.now()));
    const replaced = replacedBy(d, siblings);
    for (const previous of replaced.versions) {
      const fresh = await this.deps.resources.get(
        'AgentDeployment',
        previous.metadata.namespace ?? '',
        previous.metadata.name ?? '',
      );
      if (fresh && stateOf(fresh) === 'active') await this.finish(fresh, replaced.state, null);
    }
    return;
  }

  /** Reports a finished build's time, as the driver observed it. */
  private reportBuild(agent: Agent, d: AgentDeployment, task: TaskStatus): void {
    for (const event of finishedTaskEvents(agent, d, 'build', task.startedAt, task.finishedAt))
      this.deps.usage?.report(event);
  }

  private async finish(
    d: AgentDeployment,
    state: FinishedState,
    message: string | null,
    failure?: FailureReason,
  ): Promise<void> {
    await this.setStatus(d, finishedStatus(state, message, this.now()), failure);
    this.deps.log.info('deployment finished', {
      deployment: d.metadata.name,
      state,
      version: d.spec.version,
    });
  }

  /** Writes `changes` and the conditions they make, then records the transitions as Events. */
  private async setStatus(
    d: AgentDeployment,
    changes: AgentDeploymentStatus,
    failure?: FailureReason,
    recordEvents = true,
  ): Promise<void> {
    const status = withStatus(d, changes, this.now(), failure);
    await this.deps.resources.writeStatus('AgentDeployment', d, status);
    if (!recordEvents) return;
    for (const event of deploymentEvents(d.status?.conditions, status.conditions))
      this.deps.events.record({ kind: 'AgentDeployment', metadata: d.metadata }, event);
  }
}
