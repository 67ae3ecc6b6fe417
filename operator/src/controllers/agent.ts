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
import type { Logger } from '../../../common/logger.js';
import { setCondition } from '../conditions.js';
import type { OperatorConfig } from '../config.js';
import type { WorkloadDriver } from '../drivers/driver.js';
import type { ResourceAccess } from '../control-loop/cached-resources.js';
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
import type { EventSink } from '../events/event-recorder.js';
import {
  agentEvents,
  agentStatusBlock,
  archivedCondition,
  idleFor,
  isLost,
  scheduleSuspended,
  serviceReplicas,
  statusChanged,
  workloadCondition,
} from './agent-decisions.js';
import { versionsOf } from './agent-status.js';
import { releasableBuilds } from './build-retention.js';
import type { ClusterView } from './views.js';

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
      /** Cached reads (the agent itself) and its status writes. */
      resources: ResourceAccess;
      driver: WorkloadDriver;
      view: ClusterView;
      cfg: Pick<OperatorConfig, 'agentDomain' | 'agentScheme' | 'agentPort'>;
      enqueue: Enqueue;
      log: Logger;
      /** Where the agent's transitions are recorded as Events. */
      events: EventSink;
      now?: () => Date;
    },
  ) {}

  /** Reconciles the Agent `ref`. */
  async reconcile({ namespace, name }: ObjectRef): Promise<ReconcileResult> {
    const { resources, driver } = this.deps;
    const agent = await resources.get('Agent', namespace, name);
    if (!agent || agent.metadata.deletionTimestamp) {
      // Owner references collect its Kubernetes objects; the driver removes the rest.
      await driver.forgetAgent(namespace, name);
      return;
    }
    const now = this.deps.now?.() ?? new Date();
    const deployments = this.deps.view.deploymentsOf(namespace, name);
    const versions = versionsOf(deployments);
    let conditions = agent.status?.conditions;
    let lost = false;
    let endpoint: string | null = null;
    let workloadVersion = agent.status?.workloadVersion ?? null;
    let requeueAfter: number | undefined;

    const serving = versions.rolling ?? versions.active;
    if (agent.spec.desiredState === 'archived') {
      await driver.removeService(agent);
      await driver.removeSchedule(agent);
      // Removed on purpose: a later absence is not a loss.
      workloadVersion = null;
      conditions = setCondition(conditions, archivedCondition(agent), now);
    } else if (serving) {
      if (agent.spec.agentType === 'service') {
        const current = await driver.serviceStatus(agent);
        lost = isLost(agent, versions, current);
        if (current.exists && current.deploymentId === versions.active?.metadata.name) {
          workloadVersion = versions.active?.spec.version ?? null;
        }
        if (!lost) {
          const scale = serviceReplicas(agent, idleFor(agent, versions, now));
          requeueAfter = scale.requeueAfter;
          await driver.applyService(agent, serving, scale.replicas);
          const after = await driver.serviceStatus(agent);
          // Scaled to zero once asked to be: no replica has to become ready for that, and the
          // condition (and its ScaledToZero Event) should not wait on the old pod's removal.
          const available =
            after.exists &&
            after.deploymentId === serving.metadata.name &&
            (scale.replicas === 0 || after.ready);
          endpoint = available && scale.replicas > 0 ? (after.endpoint ?? null) : null;
          conditions = setCondition(
            conditions,
            workloadCondition(agent, serving, available, scale.replicas),
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
        await driver.applySchedule(agent, serving, scheduleSuspended(agent));
      } else {
        await driver.removeSchedule(agent);
      }
    }

    for (const released of releasableBuilds(deployments)) await driver.releaseBuild(released);

    const next = agentStatusBlock(
      agent,
      { versions, deployments, lost, endpoint, workloadVersion, conditions, requeueAfter },
      this.deps.cfg,
      now,
    );
    if (statusChanged(agent, next.status)) {
      await resources.writeStatus('Agent', agent, next.status);
      // After the write: one that conflicts is retried, and records its transitions then.
      for (const event of agentEvents(agent.status?.conditions, next.status.conditions))
        this.deps.events.record({ kind: 'Agent', metadata: agent.metadata }, event);
    }
    return next.requeueAfter === undefined ? undefined : { requeueAfter: next.requeueAfter };
  }
}
