/**
 * The `kubernetes` workload driver: builds are Jobs, services are
 * Deployments behind Services, runs are Jobs, schedules are CronJobs, and
 * every account namespace gets the NetworkPolicies that confine agent pods
 * before the first of them starts. Objects are written with server-side apply
 * under the field manager `svc-operator`, so applying the same desired object
 * twice is a no-op.
 */
import { PodUsageMeter } from './pod-usage.js';
import { PodLogFollower } from './pod-logs.js';
import { LogShipper } from '../../logs/log-shipper.js';
import { isKubeNotFound } from '../../../../common/kube/errors.js';
import type { Logger } from '../../../../common/logger.js';
import type { UsageReports } from '../../usage-reporter.js';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  NetworkingV1Api,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
  type V1Job,
} from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  LABELS,
  OBJECT_NAMES,
  type Agent,
  type AgentDeployment,
} from '../../../../crds/src/index.js';
import type { OperatorConfig } from '../../config.js';
import type { ServingStatus, TaskStatus, WorkloadDriver } from '../driver.js';
import { agentNetworkPolicy, BUILD_POLICY_NAME, buildNetworkPolicy } from './network-policy.js';
import { agentService, buildJob, runJob, scheduleCronJob, serviceDeployment } from './workloads.js';

const FIELD_MANAGER = 'svc-operator';
/** How often a namespace's NetworkPolicies are applied again, restoring any that were removed. */
const POLICY_REFRESH_MS = 10 * 60_000;

/** Reads a Job's progress; the message of a failure comes from its Failed condition. */
export function jobStatus(job: V1Job | null): TaskStatus {
  if (!job) return { phase: 'missing' };
  const conditions = job.status?.conditions ?? [];
  const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  const complete = conditions.find((c) => c.type === 'Complete' && c.status === 'True');
  const startedAt = job.status?.startTime
    ? new Date(job.status.startTime).toISOString()
    : undefined;
  const finishedAt = job.status?.completionTime
    ? new Date(job.status.completionTime).toISOString()
    : undefined;
  if (failed) {
    return {
      phase: 'failed',
      message: failed.message || failed.reason || 'the job failed',
      startedAt,
      finishedAt:
        finishedAt ??
        (failed.lastTransitionTime ? new Date(failed.lastTransitionTime).toISOString() : undefined),
    };
  }
  if (complete || (job.status?.succeeded ?? 0) > 0)
    return { phase: 'succeeded', startedAt, finishedAt };
  if ((job.status?.active ?? 0) > 0) return { phase: 'running', startedAt };
  return { phase: 'pending' };
}

/** The driver for a real cluster. */
export class KubernetesDriver implements WorkloadDriver {
  private readonly objects: KubernetesObjectApi;
  private readonly apps: AppsV1Api;
  private readonly batch: BatchV1Api;
  private readonly core: CoreV1Api;
  private readonly networking: NetworkingV1Api;
  /** When each namespace's policies were last applied. */
  private readonly policiesApplied = new Map<string, number>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly cfg: OperatorConfig,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.batch = kc.makeApiClient(BatchV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
    this.networking = kc.makeApiClient(NetworkingV1Api);
  }

  private async apply(object: KubernetesObject): Promise<void> {
    await this.objects.patch(
      object,
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      PatchStrategy.ServerSideApply,
    );
  }

  private async readJob(namespace: string, name: string): Promise<V1Job | null> {
    try {
      return await this.batch.readNamespacedJob({ namespace, name });
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      throw err;
    }
  }

  private async deleteIgnoringMissing(remove: () => Promise<unknown>): Promise<void> {
    try {
      await remove();
    } catch (err) {
      if (!isKubeNotFound(err)) throw err;
    }
  }

  /**
   * Applies the NetworkPolicies of `namespace` (see network-policy.ts) unless
   * done recently; called before anything that starts an agent's pod, so no
   * pod of an account runs unconfined.
   */
  private async ensureNetworkPolicies(namespace: string): Promise<void> {
    const cfg = this.cfg.networkPolicy;
    if (!cfg.enabled) return;
    const last = this.policiesApplied.get(namespace);
    if (last !== undefined && Date.now() - last < POLICY_REFRESH_MS) return;
    await this.apply(agentNetworkPolicy(namespace, cfg));
    const builds = buildNetworkPolicy(namespace, cfg);
    if (builds) await this.apply(builds);
    else
      await this.deleteIgnoringMissing(() =>
        this.networking.deleteNamespacedNetworkPolicy({ namespace, name: BUILD_POLICY_NAME }),
      );
    this.policiesApplied.set(namespace, Date.now());
  }

  async startBuild(agent: Agent, deployment: AgentDeployment): Promise<void> {
    await this.ensureNetworkPolicies(deployment.metadata.namespace ?? '');
    await this.apply(buildJob(deployment, this.cfg, agent));
  }

  async buildStatus(deployment: AgentDeployment): Promise<TaskStatus> {
    const name = OBJECT_NAMES.buildJob(deployment.metadata.name ?? '');
    return jobStatus(await this.readJob(deployment.metadata.namespace ?? '', name));
  }

  async cancelBuild(deployment: AgentDeployment): Promise<void> {
    const name = OBJECT_NAMES.buildJob(deployment.metadata.name ?? '');
    await this.deleteIgnoringMissing(() =>
      this.batch.deleteNamespacedJob({
        namespace: deployment.metadata.namespace ?? '',
        name,
        propagationPolicy: 'Background',
      }),
    );
  }

  async applyService(agent: Agent, deployment: AgentDeployment, replicas: number): Promise<void> {
    await this.ensureNetworkPolicies(agent.metadata.namespace ?? '');
    await this.apply(serviceDeployment(agent, deployment, this.cfg, replicas));
    await this.apply(agentService(agent));
  }

  async serviceStatus(agent: Agent): Promise<ServingStatus> {
    const name = OBJECT_NAMES.workload(agent.metadata.name ?? '');
    let workload;
    try {
      workload = await this.apps.readNamespacedDeployment({
        namespace: agent.metadata.namespace ?? '',
        name,
      });
    } catch (err) {
      if (isKubeNotFound(err))
        return {
          exists: false,
          deploymentId: null,
          desiredReplicas: 0,
          ready: false,
          failed: null,
        };
      throw err;
    }
    const desired = workload.spec?.replicas ?? 1;
    const status = workload.status ?? {};
    const rolledOut =
      (status.observedGeneration ?? 0) >= (workload.metadata?.generation ?? 0) &&
      (status.updatedReplicas ?? 0) >= desired &&
      (status.replicas ?? 0) <= desired;
    const progressing = status.conditions?.find((c) => c.type === 'Progressing');
    const failed =
      progressing?.status === 'False'
        ? (progressing.message ?? progressing.reason ?? 'rollout failed')
        : null;
    return {
      exists: true,
      deploymentId: workload.metadata?.annotations?.[ANNOTATIONS.deploymentId] ?? null,
      desiredReplicas: desired,
      ready:
        desired === 0
          ? rolledOut || (status.replicas ?? 0) === 0
          : rolledOut && (status.availableReplicas ?? 0) >= 1,
      failed,
      endpoint: `${name}.${agent.metadata.namespace}.svc:80`,
    };
  }

  async removeService(agent: Agent): Promise<void> {
    const namespace = agent.metadata.namespace ?? '';
    const name = OBJECT_NAMES.workload(agent.metadata.name ?? '');
    await this.deleteIgnoringMissing(() =>
      this.apps.deleteNamespacedDeployment({ namespace, name }),
    );
    await this.deleteIgnoringMissing(() => this.core.deleteNamespacedService({ namespace, name }));
  }

  async applySchedule(agent: Agent, serving: AgentDeployment, suspend: boolean): Promise<void> {
    await this.ensureNetworkPolicies(agent.metadata.namespace ?? '');
    await this.apply(scheduleCronJob(agent, serving, this.cfg, suspend));
  }

  async removeSchedule(agent: Agent): Promise<void> {
    const name = OBJECT_NAMES.cronJob(agent.metadata.name ?? '');
    await this.deleteIgnoringMissing(() =>
      this.batch.deleteNamespacedCronJob({ namespace: agent.metadata.namespace ?? '', name }),
    );
  }

  async startRun(agent: Agent, run: AgentDeployment, serving: AgentDeployment): Promise<void> {
    await this.ensureNetworkPolicies(agent.metadata.namespace ?? '');
    await this.apply(runJob(agent, run, serving, this.cfg));
  }

  async runStatus(run: AgentDeployment): Promise<TaskStatus> {
    const name = OBJECT_NAMES.runJob(run.metadata.name ?? '');
    return jobStatus(await this.readJob(run.metadata.namespace ?? '', name));
  }

  // Nothing outlives garbage collection here: every Deployment, Service, Job, CronJob and
  // Secret has an owner reference, and built artifacts are kept by the API server's retention.

  async releaseBuild(): Promise<void> {}

  async forgetDeployment(): Promise<void> {}

  async forgetAgent(): Promise<void> {}

  async collectOrphans(): Promise<void> {}

  /** Ships what agents' service and run pods print to the platform's logs (see pod-logs.ts). */
  async shipLogs(log: Logger): Promise<{ stop(): Promise<void> }> {
    const shipper = new LogShipper(this.cfg.internalApiUrl, this.cfg.internalSecret, log);
    const follower = new PodLogFollower(this.kc, shipper, log);
    await follower.start();
    return {
      stop: async () => {
        await follower.stop();
        await shipper.close();
      },
    };
  }

  /** Reports the time of every service pod (see pod-usage.ts). */
  async meterUsage(reports: UsageReports, log: Logger): Promise<{ stop(): Promise<void> }> {
    const meter = new PodUsageMeter(this.kc, reports, log);
    await meter.start();
    return meter;
  }
}

/** The label selector of what the operator manages. */
export const MANAGED_SELECTOR = `${LABELS.managedBy}=svc-operator`;
