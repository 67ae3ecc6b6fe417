/**
 * What the reconcilers ask of the place agents run. Two implementations:
 * `kubernetes` (Deployments, Services, Jobs, CronJobs) and `local` (child
 * processes, for the single-machine platform). Every method is idempotent:
 * calling it again with the same arguments changes nothing.
 */
import type { Agent, AgentDeployment } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { UsageReports } from '../usage-reporter.js';

/** Progress of a build or a run. */
export interface TaskStatus {
  phase: 'missing' | 'pending' | 'running' | 'succeeded' | 'failed';
  /** Why it failed, in the builder's or interpreter's own words when available. */
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  imageSizeMb?: number;
}

/** What serves a `service` agent now. */
export interface ServingStatus {
  exists: boolean;
  /** The deployment the workload runs. */
  deploymentId: string | null;
  desiredReplicas: number;
  /** The workload runs `deploymentId` and is available (or scaled to zero on purpose). */
  ready: boolean;
  /** The rollout gave up (for instance, never became healthy), with the reason. */
  failed: string | null;
  /** Where the edge sends the agent's traffic (`host:port`), once it serves. */
  endpoint?: string | null;
}

/** Where a driver reports changes no Kubernetes watch would show (processes on this machine). */
export interface DriverNotifier {
  agent(namespace: string, name: string): void;
  deployment(namespace: string, name: string): void;
}

/** A place where agents are built and run. */
export interface WorkloadDriver {
  /**
   * Starts reporting the time of the machines that serve agents, when the
   * driver observes them itself (a cluster's pods); the local driver reports
   * its processes as it runs them. Stopped with the manager.
   */
  meterUsage?(reports: UsageReports, log: Logger): Promise<{ stop(): Promise<void> }>;
  /**
   * Starts shipping what agents print to the platform's logs, when the driver reads it from
   * elsewhere (a cluster's pod logs); the local driver ships its processes' output as it runs
   * them. Stopped with the manager.
   */
  shipLogs?(log: Logger): Promise<{ stop(): Promise<void> }>;
  /** Subscribes the reconcilers to changes the driver sees first (optional: a cluster has watches). */
  notify?(notifier: DriverNotifier): void;
  /** Starts the deployment's build. */
  startBuild(agent: Agent, deployment: AgentDeployment): Promise<void>;
  /** The build's progress. */
  buildStatus(deployment: AgentDeployment): Promise<TaskStatus>;
  /** Stops the build, if any. */
  cancelBuild(deployment: AgentDeployment): Promise<void>;
  /** Serves `deployment` of a service agent with `replicas` instances (0: stopped or idle). */
  applyService(agent: Agent, deployment: AgentDeployment, replicas: number): Promise<void>;
  /** What serves the agent now. */
  serviceStatus(agent: Agent): Promise<ServingStatus>;
  /** Removes what serves the agent (archive). */
  removeService(agent: Agent): Promise<void>;
  /** Fires the agent's schedule, suspended or not. */
  applySchedule(agent: Agent, serving: AgentDeployment, suspend: boolean): Promise<void>;
  /** Removes the schedule. */
  removeSchedule(agent: Agent): Promise<void>;
  /** Starts a run (an ephemeral deployment) of the serving version. */
  startRun(agent: Agent, run: AgentDeployment, serving: AgentDeployment): Promise<void>;
  /** The run's progress. */
  runStatus(run: AgentDeployment): Promise<TaskStatus>;

  // What outlives Kubernetes' own garbage collection (a cluster needs none of this: every
  // child object has an owner reference; the local driver keeps directories on disk).

  /**
   * The deployment's build will not be served or run again (it failed, or was
   * superseded beyond the ARCHIVES_KEPT most recent successful versions): frees
   * what the build holds.
   */
  releaseBuild(deployment: AgentDeployment): Promise<void>;
  /** The deployment or run `namespace/name` no longer exists: stops and removes what was kept for it. */
  forgetDeployment(namespace: string, name: string): Promise<void>;
  /** The agent no longer exists: stops what ran it and removes what was kept for it. */
  forgetAgent(namespace: string, agentId: string): Promise<void>;
  /**
   * Removes what was kept for agents and deployments not in `live` (deleted
   * while no operator ran). Called once the caches are filled, before any reconcile.
   */
  collectOrphans(live: LiveObjects): Promise<void>;
}

/** The ids (metadata.name) of every Agent and AgentDeployment that exists. */
export interface LiveObjects {
  agents: ReadonlySet<string>;
  deployments: ReadonlySet<string>;
}
