/**
 * Reconciles an Agent into what runs it: for a `service`, the workload that
 * serves its newest built version (scaled to zero when stopped, or idle past
 * `idle_timeout_minutes` unless `keep_alive`); for a schedule, the CronJob
 * (suspended while paused); nothing at all once archived. Then writes the
 * status the contract reports. A workload that disappears on its own is not
 * recreated: the agent becomes `failed` with `app_lost_on_provider` until a
 * redeploy, which restores it with the same code, secrets and address.
 * Builds no version needs any more are released; once the agent is deleted,
 * the driver removes whatever it kept for it outside Kubernetes.
 */
import { ANNOTATIONS, type Agent, type AgentStatusBlock } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import { setCondition } from '../conditions.js';
import type { OperatorConfig } from '../config.js';
import type { ServingStatus, WorkloadDriver } from '../drivers/driver.js';
import type { CustomResourceClient } from '../../../common/kube/custom-resources.js';
import type { ReconcileResult } from '../../../common/kube/index.js';
import {
  CHILD_SOURCES,
  watchFor,
  watchOwned,
  type Controller,
  type Enqueue,
  type ObjectRef,
  type Watch,
} from '../control-loop/controller.js';
import {
  agentStatusFor,
  agentUrl,
  cronFields,
  cronLastRun,
  versionsOf,
  type Versions,
} from './agent-status.js';
import { releasableBuilds } from './build-retention.js';
import type { ClusterView } from './views.js';

const LOST_MESSAGE =
  'The compute plane has no app for this agent. Its code, secrets and address are kept; redeploy to restore it.';

/** The Agent reconciler. */
export class AgentController implements Controller {
  readonly kind = 'Agent';

  /** Its own objects, its deployments and runs (their states make its status), and its workloads. */
  readonly watches: readonly Watch[] = [
    watchFor('agents'),
    {
      source: 'agentdeployments',
      map: (d) => [{ namespace: d.metadata.namespace ?? '', name: d.spec.agentId }],
    },
    ...watchOwned('Agent', CHILD_SOURCES),
  ];

  constructor(
    private readonly deps: {
      resources: CustomResourceClient;
      driver: WorkloadDriver;
      view: ClusterView;
      cfg: Pick<OperatorConfig, 'agentDomain' | 'agentScheme' | 'agentPort'>;
      enqueue: Enqueue;
      log: Logger;
      now?: () => Date;
    },
  ) {}

  /** Reconciles the Agent `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const agent = await this.deps.resources.get('Agent', namespace, name);
    if (!agent || agent.metadata.deletionTimestamp) {
      // Owner references collect its Kubernetes objects; the driver removes the rest.
      await this.deps.driver.forgetAgent(namespace, name);
      return;
    }
    const now = this.deps.now?.() ?? new Date();
    const deployments = this.deps.view.deploymentsOf(namespace, name);
    const versions = versionsOf(deployments);
    const { driver } = this.deps;
    const desired = agent.spec.desiredState;
    let conditions = agent.status?.conditions;
    let lost = false;
    let endpoint: string | null = null;
    let workloadVersion = agent.status?.workloadVersion ?? null;
    let requeueAfter: number | undefined;

    const serving = versions.rolling ?? versions.active;
    if (desired === 'archived') {
      await driver.removeService(agent);
      await driver.removeSchedule(agent);
      // Removed on purpose: a later absence is not a loss.
      workloadVersion = null;
      conditions = setCondition(
        conditions,
        {
          type: 'WorkloadAvailable',
          status: 'False',
          reason: 'Archived',
          message: 'The agent is archived.',
          observedGeneration: agent.metadata.generation,
        },
        now,
      );
    } else if (serving) {
      if (agent.spec.agentType === 'service') {
        const current = await driver.serviceStatus(agent);
        lost = this.isLost(agent, versions, current);
        if (current.exists && current.deploymentId === versions.active?.metadata.name) {
          workloadVersion = versions.active?.spec.version ?? null;
        }
        if (!lost) {
          const idle = this.idleFor(agent, versions, now);
          const replicas = desired === 'paused' || idle.idle ? 0 : 1;
          if (replicas === 1 && idle.remainingMs !== null) requeueAfter = idle.remainingMs;
          await driver.applyService(agent, serving, replicas);
          const after = await driver.serviceStatus(agent);
          const available =
            after.exists && after.ready && after.deploymentId === serving.metadata.name;
          endpoint = available && replicas > 0 ? (after.endpoint ?? null) : null;
          conditions = setCondition(
            conditions,
            {
              type: 'WorkloadAvailable',
              status: available ? 'True' : 'False',
              reason: available ? (replicas === 0 ? 'ScaledToZero' : 'Available') : 'RollingOut',
              message: available
                ? `Serving version ${serving.spec.version}.`
                : `Rolling out version ${serving.spec.version}.`,
              observedGeneration: agent.metadata.generation,
            },
            now,
          );
          // The deployment being rolled out moves on when its workload is ready.
          if (versions.rolling)
            this.deps.enqueue('AgentDeployment', {
              namespace,
              name: versions.rolling.metadata.name ?? '',
            });
        }
      }
      if (!lost && agent.spec.schedule) {
        await driver.applySchedule(
          agent,
          serving,
          desired === 'paused' || Boolean(agent.spec.schedulePaused),
        );
      } else {
        await driver.removeSchedule(agent);
      }
    }

    for (const released of releasableBuilds(deployments)) await driver.releaseBuild(released);

    const status = agentStatusFor(agent, versions, lost);
    const deployed = Boolean(versions.active) && desired !== 'archived' && !lost;
    const cron = cronFields(agent, agent.status, now);
    if (cron.cronNextRunAt) {
      const untilNext = new Date(cron.cronNextRunAt).getTime() - now.getTime() + 1000;
      requeueAfter = Math.min(requeueAfter ?? untilNext, untilNext);
    }
    conditions = setCondition(
      conditions,
      {
        type: 'Ready',
        status: status === 'running' ? 'True' : 'False',
        reason: status,
        message: lost ? LOST_MESSAGE : `The agent is ${status}.`,
        observedGeneration: agent.metadata.generation,
      },
      now,
    );
    const next: AgentStatusBlock = {
      ...agent.status,
      ...cron,
      ...cronLastRun(deployments, agent.status),
      observedGeneration: agent.metadata.generation,
      conditions,
      status,
      deployed,
      url: agentUrl(
        agent,
        deployed,
        this.deps.cfg.agentScheme,
        this.deps.cfg.agentDomain,
        this.deps.cfg.agentPort,
      ),
      endpoint,
      activeVersion: versions.active?.spec.version ?? null,
      activeDeploymentId: versions.active?.metadata.name ?? null,
      workloadVersion,
      failureMessage: lost ? LOST_MESSAGE : null,
      regionsTotal: agent.spec.regions.length,
      regionsReady: deployed ? agent.spec.regions.length : 0,
    };
    if (lost) next.failureCode = 'app_lost_on_provider';
    else delete next.failureCode;
    if (JSON.stringify(next) !== JSON.stringify(agent.status)) {
      await this.deps.resources.writeStatus('Agent', agent, next);
    }
    return requeueAfter === undefined ? undefined : { requeueAfter: Math.max(requeueAfter, 1000) };
  }

  /**
   * The workload of the active version vanished by itself: it was available
   * before, nothing newer is rolling out, and the agent was not archived.
   */
  private isLost(agent: Agent, versions: Versions, current: ServingStatus): boolean {
    if (versions.rolling || current.exists || !versions.active) return false;
    // The operator saw the active version's workload exist, and now it is gone.
    return agent.status?.workloadVersion === versions.active.spec.version;
  }

  /** Whether a service has been idle past its timeout, and if not, for how much longer it may be. */
  private idleFor(
    agent: Agent,
    versions: Versions,
    now: Date,
  ): { idle: boolean; remainingMs: number | null } {
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
}
