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
  type AgentDeployment,
  type AgentDeploymentStatus,
} from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { OperatorConfig } from '../config.js';
import type { WorkloadDriver } from '../drivers/driver.js';
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
import type { RunController } from './run.js';
import { byAge, newest, stateOf, type ClusterView } from './views.js';

const now = () => new Date().toISOString();
const POLL_MS = 5000;

/**
 * Whether a deployment in this state may have freed a build slot: any state but
 * waiting for one or holding one.
 */
function holdsNoBuildSlot(d: AgentDeployment): boolean {
  return !d.spec.ephemeral && !['queued', 'building'].includes(stateOf(d));
}

/** The AgentDeployment reconciler: versions here, runs by the run controller. */
export class AgentDeploymentController implements Controller {
  readonly kind = 'AgentDeployment';

  /**
   * Its own objects and the Jobs and Deployments they own; and when a deployment
   * leaves (or never held) a build slot, every queued one, since one may start now.
   */
  readonly watches: readonly Watch[] = [
    watchFor('agentdeployments'),
    { source: 'agentdeployments', map: (d) => (holdsNoBuildSlot(d) ? this.waitingForSlot() : []) },
    ...watchOwned('AgentDeployment', CHILD_SOURCES),
  ];

  constructor(
    private readonly deps: {
      resources: CustomResourceClient;
      driver: WorkloadDriver;
      view: ClusterView;
      cfg: Pick<OperatorConfig, 'buildConcurrency'>;
      runs: RunController;
      enqueue: Enqueue;
      log: Logger;
    },
  ) {}

  /** The versions waiting for a build slot. */
  private waitingForSlot(): ObjectRef[] {
    return this.deps.view
      .deployments()
      .filter((d) => stateOf(d) === 'queued' && !d.spec.ephemeral)
      .map(refOf);
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
    if (d.spec.ephemeral) return this.deps.runs.reconcile(d);
    const state = stateOf(d);
    if (isFinalState(state)) return;
    const agent = await resources.get('Agent', namespace, d.spec.agentId);
    if (!agent) return;

    if (d.spec.cancellationRequested) {
      await driver.cancelBuild(d);
      await this.finish(
        d,
        'failed',
        `Cancelled: ${d.spec.cancellationReason ?? 'cancelled by the user'}`,
      );
      return;
    }

    switch (state) {
      case 'queued':
        return this.queued(d);
      case 'building': {
        const build = await driver.buildStatus(d);
        if (build.phase === 'missing') {
          // Status says building but the Job is gone (deleted, or the operator stopped between the two writes).
          await driver.startBuild(agent, d);
          return { requeueAfter: POLL_MS };
        }
        if (build.phase === 'failed') {
          await this.finish(d, 'failed', `Build failed: ${build.message ?? 'unknown error'}`);
          return;
        }
        if (build.phase === 'succeeded') {
          await this.setStatus(d, {
            state: 'deploying',
            builtAt: now(),
            ...(build.imageSizeMb ? { imageSizeMb: build.imageSizeMb } : {}),
          });
          return;
        }
        return { requeueAfter: POLL_MS };
      }
      case 'deploying': {
        const siblings = this.deps.view
          .deploymentsOf(namespace, d.spec.agentId)
          .filter((s) => !s.spec.ephemeral);
        const newer = newest(
          siblings,
          (s) => s.spec.version > d.spec.version && ['deploying', 'active'].includes(stateOf(s)),
        );
        if (newer) {
          await this.finish(d, 'superseded', null);
          return;
        }
        if (d.spec.config.agentType === 'job') return this.activate(d, siblings);
        const serving = await driver.serviceStatus(agent);
        if (serving.exists && serving.deploymentId === d.metadata.name) {
          if (serving.failed) {
            await this.finish(
              d,
              'failed',
              `The new version did not become healthy: ${serving.failed}`,
            );
            return;
          }
          if (serving.ready) return this.activate(d, siblings);
        }
        // The agent controller rolls the workload out; its progress brings this deployment back.
        enqueue('Agent', { namespace, name: d.spec.agentId });
        return { requeueAfter: POLL_MS };
      }
    }
    return;
  }

  /** Starts the build when a slot is free, else records the queue position. */
  private async queued(d: AgentDeployment): Promise<ReconcileResult> {
    const all = this.deps.view.deployments().filter((x) => !x.spec.ephemeral);
    const building = all.filter((x) => stateOf(x) === 'building').length;
    const waiting = all
      .filter(
        (x) =>
          stateOf(x) === 'queued' && !x.spec.cancellationRequested && !x.metadata.deletionTimestamp,
      )
      .sort(byAge);
    const index = waiting.findIndex((x) => x.metadata.name === d.metadata.name);
    const position = index < 0 ? waiting.length : index;
    const slots = this.deps.cfg.buildConcurrency - building;
    if (position < slots) {
      const agent = await this.deps.resources.get(
        'Agent',
        d.metadata.namespace ?? '',
        d.spec.agentId,
      );
      if (!agent) return;
      // The status write first: if it conflicts, no Job was started; the Job's name makes a retry idempotent.
      await this.setStatus(d, { state: 'building', queuePosition: null, startedAt: now() });
      await this.deps.driver.startBuild(agent, d);
      return { requeueAfter: POLL_MS };
    }
    const queuePosition = position - Math.max(slots, 0) + 1;
    if (d.status?.state !== 'queued' || d.status.queuePosition !== queuePosition) {
      await this.setStatus(d, { state: 'queued', queuePosition });
    }
    return { requeueAfter: POLL_MS * 2 };
  }

  /** Makes `d` the active version; the active one before it is superseded or rolled back. */
  private async activate(
    d: AgentDeployment,
    siblings: AgentDeployment[],
  ): Promise<ReconcileResult> {
    await this.setStatus(d, {
      state: 'active',
      deployedAt: now(),
      isServing: d.spec.config.agentType === 'service',
      canRedeploy: true,
    });
    const replaced = d.spec.rollbackOfVersion ? 'rolled_back' : 'superseded';
    for (const previous of siblings) {
      if (previous.metadata.name !== d.metadata.name && stateOf(previous) === 'active') {
        const fresh = await this.deps.resources.get(
          'AgentDeployment',
          previous.metadata.namespace ?? '',
          previous.metadata.name ?? '',
        );
        if (fresh && stateOf(fresh) === 'active') await this.finish(fresh, replaced, null);
      }
    }
    return;
  }

  private async finish(
    d: AgentDeployment,
    state: 'failed' | 'superseded' | 'rolled_back',
    message: string | null,
  ): Promise<void> {
    await this.setStatus(d, {
      state,
      finishedAt: now(),
      queuePosition: null,
      isServing: false,
      ...(message ? { errorMessage: message } : {}),
    });
    this.deps.log.info('deployment finished', {
      deployment: d.metadata.name,
      state,
      version: d.spec.version,
    });
  }

  private async setStatus(d: AgentDeployment, changes: AgentDeploymentStatus): Promise<void> {
    await this.deps.resources.writeStatus('AgentDeployment', d, {
      ...d.status,
      ...changes,
      observedGeneration: d.metadata.generation,
    });
  }
}
