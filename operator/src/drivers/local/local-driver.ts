/**
 * The `local` workload driver of the single-machine platform: builds in a
 * directory per deployment, services as supervised child processes each on
 * a Unix socket of its own (the Agent's endpoint, where the edge connects),
 * runs as one process each, schedules as cron-parser timers.
 * What agents print and what happens to them is shipped to the API server's
 * logs. Secrets come from the same Kubernetes Secrets a cluster pod would
 * mount, so the reconcilers cannot tell the two drivers apart.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  OBJECT_NAMES,
  type Agent,
  type AgentDeployment,
} from '../../../../crds/src/index.js';
import { nextRun } from '../../../../common/cron.js';
import { isKubeNotFound } from '../../../../common/kube/errors.js';
import type { Logger } from '../../../../common/logger.js';
import { ProcessGroup } from '../../../../common/processes.js';
import type { OperatorConfig } from '../../config.js';
import type {
  DriverNotifier,
  LiveObjects,
  ServingStatus,
  TaskStatus,
  WorkloadDriver,
} from '../driver.js';
import { agentEnv, agentSecretSources } from '../agent-environment.js';
import { secretMasker } from '../secret-masking.js';
import { secretEnvironment } from '../secret-environment.js';
import { AgentLauncher } from './agent-launcher.js';
import { buildDeployment, relativeToCode } from './builder.js';
import { LogShipper, type LogOwner } from '../../logs/log-shipper.js';
import { UsageReporter, usageOwner } from '../../usage-reporter.js';
import {
  REPO_NODE_MODULES,
  REPO_ROOT,
  runnerCommand,
  runnerPaths,
  runtimeAvailable,
  type RunnerPaths,
} from './runner-command.js';
import { readRecord, removeRecord, writeModuleBoundary, writeRecord } from './state-files.js';
import {
  newSocketDir,
  removeAgentState,
  removeBuild,
  removeDeploymentState,
  removeOrphans,
  removeSocketDirs,
} from './state-cleanup.js';
import { requestService } from './service-request.js';
import { SupervisedService } from './supervised-service.js';
import { fireSchedule } from './schedule-firing.js';

interface TaskRecord extends TaskStatus {
  deploymentId: string;
  /** The driver instance that started it: only another instance's unfinished run was cut short. */
  owner?: string;
}

/** Time as the schedule timers see it. */
export interface ScheduleClock {
  now(): Date;
  /** Calls `fire` after `ms`; the returned handle is cleared with clearTimeout. */
  setTimeout(fire: () => void, ms: number): NodeJS.Timeout;
}

/** The real clock; schedule timers never keep the process alive. */
const systemClock: ScheduleClock = {
  now: () => new Date(),
  setTimeout: (fire, ms) => setTimeout(fire, ms).unref(),
};

/** A service process of an agent, and what it was started with. */
interface RunningService {
  deploymentId: string;
  service: SupervisedService;
  /** The agent's secrets revision the service was started with (see applyService). */
  secretsRevision: string;
  /** Hides the agent's secret values in what the service reports. */
  mask: (line: string) => string;
}

/** How long a replaced service keeps answering while the edge learns the new address. */
const DRAIN_MS = 5_000;

interface ServiceRecord {
  deploymentId: string;
  replicas: number;
}

const now = () => new Date().toISOString();
/** The longest path a Unix socket can have on Linux (sun_path's 108 bytes, less the NUL). */
const MAX_SOCKET_PATH = 107;

/** The driver for one machine. */
export class LocalDriver implements WorkloadDriver {
  private readonly group: ProcessGroup;
  private readonly core: CoreV1Api;
  private readonly shipper: LogShipper;
  /** Reports each service process's running time (runs and builds are the controllers'). */
  private readonly usage: UsageReporter;
  private readonly builds = new Map<string, AbortController>();
  private readonly services = new Map<string, RunningService>();
  /** Services starting with new secret values, to take over from those in `services`. */
  private readonly replacements = new Map<string, RunningService>();
  /** Services replaced by one with new secrets, answering out their drain before they stop. */
  private readonly draining = new Set<RunningService>();
  private readonly runs = new Set<string>();
  private readonly schedules = new Map<string, { key: string; timer: NodeJS.Timeout }>();
  private notifier: DriverNotifier | null = null;
  private readonly instance = randomUUID();
  private readonly runners: RunnerPaths;
  /** Starts agent processes (sandboxed where possible); made by {@link init}. */
  private launcher!: AgentLauncher;

  constructor(
    kc: KubeConfig,
    private readonly cfg: OperatorConfig,
    private readonly dir: string,
    private readonly log: Logger,
    /** The clock schedules fire by; tests drive their own. */
    private readonly clock: ScheduleClock = systemClock,
  ) {
    this.group = new ProcessGroup(join(dir, 'logs'));
    this.core = kc.makeApiClient(CoreV1Api);
    this.shipper = new LogShipper(cfg.internalApiUrl, cfg.internalSecret, log);
    this.usage = new UsageReporter(cfg.internalApiUrl, cfg.internalSecret, log);
    this.runners = runnerPaths(cfg);
  }

  notify(notifier: DriverNotifier): void {
    this.notifier = notifier;
  }

  private buildDir(deploymentId: string): string {
    return join(this.dir, 'builds', deploymentId);
  }

  /**
   * A failure message as the agent's owner should read it: paths in the
   * deployment's code relative to it (whether the sandbox's /app or the build
   * directory), the platform's own directories on this host hidden.
   */
  private asUserSees(message: string, deploymentId: string): string {
    const appDir = join(this.buildDir(deploymentId), 'app');
    return relativeToCode(message, [appDir, this.launcher.appDirOf(appDir)], [this.dir, REPO_ROOT]);
  }

  private owner(agent: Agent): LogOwner {
    const environment = (agent.metadata.namespace ?? '').split('-')[1] ?? 'live';
    return { agentId: agent.metadata.name ?? '', accountId: agent.spec.userId, environment };
  }

  private event(
    agent: Agent,
    deploymentId: string | null,
    message: string,
    level = 'SYSTEM',
  ): void {
    this.shipper.push(this.owner(agent), {
      deployment_id: deploymentId,
      stream: 'system',
      message,
      level,
    });
  }

  // Builds.

  async startBuild(agent: Agent, deployment: AgentDeployment): Promise<void> {
    const id = deployment.metadata.name ?? '';
    if (this.builds.has(id)) return;
    const record = join(this.buildDir(id), 'build.json');
    const existing = await readRecord<TaskRecord>(record);
    if (existing && existing.phase !== 'running') return;
    const controller = new AbortController();
    this.builds.set(id, controller);
    const startedAt = now();
    await writeRecord(record, {
      deploymentId: id,
      phase: 'running',
      startedAt,
    } satisfies TaskRecord);
    this.event(agent, id, `build of version ${deployment.spec.version} started`);
    // A build sees the agent's secrets only when its svc.yaml says `build_secrets: true`.
    let mask: (line: string) => string = String;
    void this.admitted(agent)
      .then(async () => {
        const secrets = deployment.spec.config.buildSecrets ? await this.secretsOf(agent) : {};
        mask = secretMasker(Object.values(secrets));
        await buildDeployment(deployment, join(this.buildDir(id), 'app'), {
          apiUrl: this.cfg.internalApiUrl,
          secret: this.cfg.internalSecret,
          runners: this.runners,
          signal: controller.signal,
          output: (line) => this.event(agent, id, `build: ${mask(line)}`, 'INFO'),
          tools: this.launcher.buildTools(agent, deployment.spec.config.memoryMb),
          env: secrets,
          fetchRetryMs: this.cfg.archiveFetchRetrySeconds * 1000,
        });
      })
      .then(
        async () => {
          await writeRecord(record, {
            deploymentId: id,
            phase: 'succeeded',
            startedAt,
            finishedAt: now(),
          });
          this.event(agent, id, `build of version ${deployment.spec.version} succeeded`);
          this.notifier?.deployment(deployment.metadata.namespace ?? '', id);
        },
        async (err: unknown) => {
          const message = controller.signal.aborted
            ? 'cancelled'
            : mask(this.asUserSees((err as Error).message, id));
          await writeRecord(record, {
            deploymentId: id,
            phase: 'failed',
            message,
            startedAt,
            finishedAt: now(),
          });
          this.event(
            agent,
            id,
            `build of version ${deployment.spec.version} failed: ${message}`,
            'ERROR',
          );
          this.notifier?.deployment(deployment.metadata.namespace ?? '', id);
        },
      )
      .finally(() => this.builds.delete(id));
  }

  async buildStatus(deployment: AgentDeployment): Promise<TaskStatus> {
    const id = deployment.metadata.name ?? '';
    const record = await readRecord<TaskRecord>(join(this.buildDir(id), 'build.json'));
    if (!record) return { phase: 'missing' };
    // A build recorded as running that this process is not running was cut short by a restart.
    if (record.phase === 'running' && !this.builds.has(id)) return { phase: 'missing' };
    return record;
  }

  async cancelBuild(deployment: AgentDeployment): Promise<void> {
    this.builds.get(deployment.metadata.name ?? '')?.abort();
  }

  /** True when agents run sandboxed (see AgentLauncher). */
  get sandboxed(): boolean {
    return this.launcher.sandboxed;
  }

  /** Rejects with the reason when this machine may not run `agent` (see AgentLauncher). */
  private async admitted(agent: Agent): Promise<void> {
    const refused = await this.launcher.admit(agent);
    if (refused) throw new Error(refused);
  }

  // Services.

  /**
   * The environment of an agent process: the agent's secrets (read now, so a
   * process sees the values current when it starts), then the platform's
   * variables, which win over a secret of the same name; with the masker of
   * those secret values for what the process prints.
   */
  private async environment(
    agent: Agent,
    deployment: AgentDeployment,
    extra: Record<string, string>,
  ): Promise<{ env: Record<string, string>; mask: (line: string) => string }> {
    const env: Record<string, string> = {};
    for (const variable of agentEnv(agent, deployment, this.cfg, { mode: 'service', ...extra })) {
      env[variable.name] = variable.value;
    }
    const secrets = await this.secretsOf(agent);
    return {
      env: {
        ...secrets,
        ...env,
        ...(await this.readSecret(
          agent,
          OBJECT_NAMES.deploymentKeySecret(deployment.metadata.name ?? ''),
        )),
      },
      mask: secretMasker(Object.values(secrets)),
    };
  }

  /** The variables the Secret `name` of the agent's namespace holds (none when it does not exist). */
  private async readSecret(agent: Agent, name: string): Promise<Record<string, string>> {
    try {
      const read = await this.core.readNamespacedSecret({
        namespace: agent.metadata.namespace ?? '',
        name,
      });
      return secretEnvironment(read);
    } catch (err) {
      if (isKubeNotFound(err)) return {};
      throw err;
    }
  }

  /** The agent's secrets as they are now: its workspace's, then its own (its own wins on a shared key). */
  private async secretsOf(agent: Agent): Promise<Record<string, string>> {
    const secrets: Record<string, string> = {};
    for (const name of agentSecretSources(agent))
      Object.assign(secrets, await this.readSecret(agent, name));
    return secrets;
  }

  async applyService(agent: Agent, deployment: AgentDeployment, replicas: number): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    const deploymentId = deployment.metadata.name ?? '';
    await writeRecord(join(this.dir, 'services', `${agentId}.json`), {
      deploymentId,
      replicas,
    } satisfies ServiceRecord);
    // The API server stamps the revision of the agent's secrets on it whenever they change:
    // a service started with other values is replaced by one started with the new ones.
    const secretsRevision = agent.metadata.annotations?.[ANNOTATIONS.secretsRevision] ?? '';
    const running = this.services.get(agentId);
    if (running && (running.deploymentId !== deploymentId || replicas === 0)) {
      this.services.delete(agentId);
      await this.dropReplacement(agentId);
      await running.service.stop();
      this.event(
        agent,
        running.deploymentId,
        replicas === 0 ? 'service stopped (scaled to zero)' : 'service stopped for a new version',
      );
    } else if (running && running.secretsRevision !== secretsRevision) {
      await this.replace(agent, deployment, running, secretsRevision);
      return;
    }
    if (replicas === 0 || this.services.has(agentId)) return;
    this.services.set(agentId, await this.launchService(agent, deployment, secretsRevision));
  }

  /**
   * Rolls a running service onto new secret values without a gap: a second
   * process starts with them beside the first; once it is ready (or has
   * failed, which the agent's status then shows) it takes over, and the first
   * keeps answering for {@link DRAIN_MS} while the edge learns the new
   * address, then stops. Called again at each reconcile until it has swapped.
   */
  private async replace(
    agent: Agent,
    deployment: AgentDeployment,
    running: RunningService,
    secretsRevision: string,
  ): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    let next = this.replacements.get(agentId);
    if (next && next.secretsRevision !== secretsRevision) {
      await this.dropReplacement(agentId);
      next = undefined;
    }
    if (!next) {
      this.event(agent, running.deploymentId, 'service restarting: its secrets changed');
      this.replacements.set(agentId, await this.launchService(agent, deployment, secretsRevision));
      return;
    }
    if (next.service.state !== 'ready' && next.service.state !== 'failed') return;
    this.replacements.delete(agentId);
    this.services.set(agentId, next);
    // Tracked until stopped, so close() stops one still draining too (none is left behind).
    this.draining.add(running);
    setTimeout(() => {
      void running.service.stop().finally(() => this.draining.delete(running));
    }, DRAIN_MS).unref();
  }

  private async dropReplacement(agentId: string): Promise<void> {
    const next = this.replacements.get(agentId);
    this.replacements.delete(agentId);
    await next?.service.stop();
  }

  /** Starts a process serving `deployment` of the agent, with its secrets as they are now. */
  private async launchService(
    agent: Agent,
    deployment: AgentDeployment,
    secretsRevision: string,
  ): Promise<RunningService> {
    const agentId = agent.metadata.name ?? '';
    const deploymentId = deployment.metadata.name ?? '';
    const appDir = join(this.buildDir(deploymentId), 'app');
    const runtime = deployment.spec.config.runtime;
    const entrypoint = deployment.spec.config.entrypoint ?? 'main.py';
    const owner = this.owner(agent);
    const launcher = this.launcher;
    const statusDir = join(this.buildDir(deploymentId), 'status');
    await launcher.handOver(agent, statusDir);
    // The edge's way in (README "Isolation"): a Unix socket in a directory of this process's own.
    const socketDir = newSocketDir(this.dir, agentId);
    await launcher.makeSocketDir(agent, socketDir);
    const socket = launcher.socketOf(socketDir);
    const { env, mask } = await this.environment(agent, deployment, {});
    const errorFile = launcher.errorFileOf(statusDir);
    const service = new SupervisedService(this.group, {
      name: `agent-${agentId}`,
      command: runnerCommand(
        this.runners,
        runtime,
        'serve',
        launcher.appDirOf(appDir),
        entrypoint,
        { socket: socket.runner },
      ),
      cwd: appDir,
      env: { ...launcher.baseEnv(), ...env },
      socket: socket.host,
      errorFile: errorFile.host,
      runnerErrorFile: errorFile.runner,
      launch: (start) =>
        launcher.start({
          ...start,
          agent,
          appDir,
          memoryMb: deployment.spec.config.memoryMb,
          socketDir,
          statusDir,
        }),
      onStdout: (message) =>
        this.shipper.push(owner, {
          deployment_id: deploymentId,
          stream: 'stdout',
          message: mask(message),
        }),
      onStderr: (message) =>
        this.shipper.push(owner, {
          deployment_id: deploymentId,
          stream: 'stderr',
          message: mask(message),
        }),
      onMachine: (startedAt, stoppedAt) =>
        this.usage.report({
          ...usageOwner(agent),
          id: `compute:service:${deploymentId}:${this.instance}:${basename(socketDir)}:${startedAt.getTime()}`,
          deployment_id: deploymentId,
          kind: 'compute',
          started_at: startedAt.toISOString(),
          ended_at: stoppedAt.toISOString(),
          memory_mb: deployment.spec.config.memoryMb,
        }),
      onEvent: (message, level) => {
        this.event(agent, deploymentId, mask(message), level === 'INFO' ? 'SYSTEM' : level);
        // Ready, crashed or failed: the agent's status and a rolling deployment move on.
        this.notifier?.agent(agent.metadata.namespace ?? '', agentId);
        this.notifier?.deployment(agent.metadata.namespace ?? '', deploymentId);
      },
    });
    // Built while the interpreter was there (SVC_BUN_PATH changed since, say): a failure, not
    // a process restarted for ever.
    const available = runtimeAvailable(this.runners, runtime);
    const refused = await launcher.admit(agent);
    if (refused) service.fail(refused);
    else if (Buffer.byteLength(socket.host) > MAX_SOCKET_PATH)
      service.fail(
        `The local driver's directory path is too long for a Unix socket (${socket.host}); set SVC_LOCAL_DIR to a shorter path.`,
      );
    else if (available.ok) service.start();
    else service.fail(available.reason);
    return { deploymentId, service, secretsRevision, mask };
  }

  async serviceStatus(agent: Agent): Promise<ServingStatus> {
    const agentId = agent.metadata.name ?? '';
    const record = await readRecord<ServiceRecord>(join(this.dir, 'services', `${agentId}.json`));
    if (!record)
      return { exists: false, deploymentId: null, desiredReplicas: 0, ready: false, failed: null };
    const running = this.services.get(agentId);
    const current = running?.deploymentId === record.deploymentId ? running : undefined;
    const service = current?.service;
    return {
      exists: true,
      deploymentId: record.deploymentId,
      desiredReplicas: record.replicas,
      ready: record.replicas === 0 ? !service : service?.state === 'ready',
      failed:
        service?.state === 'failed' && service.failure !== null
          ? (current?.mask ?? String)(this.asUserSees(service.failure, record.deploymentId))
          : null,
      endpoint: service?.state === 'ready' ? service.endpoint : null,
    };
  }

  async removeService(agent: Agent): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    const running = this.services.get(agentId);
    this.services.delete(agentId);
    await this.dropReplacement(agentId);
    await running?.service.stop();
    await removeRecord(join(this.dir, 'services', `${agentId}.json`));
  }

  // Schedules.

  async applySchedule(agent: Agent, serving: AgentDeployment, suspend: boolean): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    const key = `${agent.spec.schedule}|${suspend}|${serving.metadata.name}`;
    const current = this.schedules.get(agentId);
    if (current?.key === key) return;
    if (current) clearTimeout(current.timer);
    this.schedules.delete(agentId);
    if (suspend || !agent.spec.schedule) return;
    const arm = () => {
      const clock = this.clock;
      const at = nextRun(agent.spec.schedule ?? '', clock.now());
      // Timers cap at ~24.8 days; re-arm in steps for anything later.
      const delay = Math.min(at.getTime() - clock.now().getTime(), 2 ** 31 - 1);
      const timer = clock.setTimeout(
        () => {
          if (clock.now().getTime() >= at.getTime() - 5) void this.fire(agent, serving);
          arm();
        },
        Math.max(delay, 0),
      );
      this.schedules.set(agentId, { key, timer });
    };
    arm();
  }

  /** A firing asks the API for a run, with the agent's own key, exactly as a CronJob does. */
  private async fire(agent: Agent, serving: AgentDeployment): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    const url = `${this.cfg.internalApiUrl}/api/v1/agents/${agentId}/run`;
    await fireSchedule(
      async () => {
        const { env } = await this.environment(agent, serving, {});
        return fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${env.SVC_API_KEY}`,
            'x-svc-trigger': 'cron',
            'content-type': 'application/json',
          },
          body: '{}',
        });
      },
      (reason, final) => this.event(agent, null, reason, final ? 'ERROR' : 'WARN'),
    );
  }

  async removeSchedule(agent: Agent): Promise<void> {
    const agentId = agent.metadata.name ?? '';
    const current = this.schedules.get(agentId);
    if (current) clearTimeout(current.timer);
    this.schedules.delete(agentId);
  }

  // Runs.

  private runRecord(runId: string): string {
    return join(this.dir, 'runs', `${runId}.json`);
  }

  async startRun(agent: Agent, run: AgentDeployment, serving: AgentDeployment): Promise<void> {
    const runId = run.metadata.name ?? '';
    if (this.runs.has(runId) || (await readRecord<TaskRecord>(this.runRecord(runId)))) return;
    this.runs.add(runId);
    const startedAt = now();
    await writeRecord(this.runRecord(runId), {
      deploymentId: runId,
      phase: 'running',
      startedAt,
      owner: this.instance,
    } satisfies TaskRecord);
    const finish = async (phase: 'succeeded' | 'failed', message?: string) => {
      await writeRecord(this.runRecord(runId), {
        deploymentId: runId,
        phase,
        message,
        startedAt,
        finishedAt: now(),
      });
      this.runs.delete(runId);
      this.notifier?.deployment(run.metadata.namespace ?? '', runId);
      this.event(
        agent,
        runId,
        `run ${phase === 'succeeded' ? 'completed' : `failed: ${message ?? ''}`}`,
        phase === 'succeeded' ? 'SYSTEM' : 'ERROR',
      );
    };
    this.event(agent, runId, `run started (${run.spec.triggerSource ?? 'manual'})`);
    if (serving.spec.config.agentType === 'service') {
      void this.runOnService(agent, run, serving).then(
        () => finish('succeeded'),
        (err: Error) => finish('failed', err.message),
      );
      return;
    }
    const runtime = serving.spec.config.runtime;
    const entrypoint = serving.spec.config.entrypoint ?? 'main.py';
    const available = runtimeAvailable(this.runners, runtime);
    if (!available.ok) {
      await finish('failed', available.reason);
      return;
    }
    const refused = await this.launcher.admit(agent);
    if (refused) {
      await finish('failed', refused);
      return;
    }
    const appDir = join(this.buildDir(serving.metadata.name ?? ''), 'app');
    const owner = this.owner(agent);
    const { env, mask } = await this.environment(agent, serving, {});
    Object.assign(
      env,
      { SVC_DEPLOYMENT_ID: runId, SVC_MODE: 'run' },
      run.spec.spawnedByAgentId ? { SVC_SPAWN_ID: runId } : {},
    );
    const launcher = this.launcher;
    const command = runnerCommand(
      this.runners,
      runtime,
      'run',
      launcher.appDirOf(appDir),
      entrypoint,
    );
    const proc = launcher.start({
      name: `run-${runId}`,
      agent,
      appDir,
      memoryMb: serving.spec.config.memoryMb,
      command: command.command,
      args: command.args,
      env: { ...launcher.baseEnv(), ...env, ...command.env },
      cwd: appDir,
      onStdoutLine: (message) =>
        this.shipper.push(owner, {
          deployment_id: runId,
          stream: 'stdout',
          message: mask(message),
        }),
      onStderrLine: (message) =>
        this.shipper.push(owner, {
          deployment_id: runId,
          stream: 'stderr',
          message: mask(message),
        }),
    });
    void proc.exited.then(
      (code) =>
        finish(
          code === 0 ? 'succeeded' : 'failed',
          code === 0
            ? undefined
            : (proc as { outOfMemory?: boolean }).outOfMemory
              ? `killed: out of memory (memory_mb ${serving.spec.config.memoryMb})`
              : `exited with ${code}`,
        ),
      (err: Error) => finish('failed', err.message),
    );
  }

  /** A run of a service agent is one POST /svc/run to its running service, with the run's payload. */
  private async runOnService(
    agent: Agent,
    run: AgentDeployment,
    serving: AgentDeployment,
  ): Promise<void> {
    // A service that is (re)starting gets a minute to answer before the run fails.
    let status = await this.serviceStatus(agent);
    for (let waited = 0; !status.endpoint && !status.failed && waited < 60_000; waited += 200) {
      await new Promise((r) => setTimeout(r, 200));
      status = await this.serviceStatus(agent);
    }
    if (!status.endpoint) throw new Error(status.failed ?? 'the service is not running');
    const { env } = await this.environment(agent, serving, {});
    const payload = await fetch(
      `${this.cfg.internalApiUrl}/api/v1/deployments/${run.metadata.name}/payload`,
      {
        headers: { authorization: `Bearer ${env.SVC_API_KEY}` },
      },
    ).then((r) => (r.ok ? (r.json() as Promise<{ payload: unknown }>) : { payload: null }));
    const res = await requestService(status.endpoint, '/svc/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'svc-run-id': run.metadata.name ?? '' },
      body: JSON.stringify(payload.payload ?? {}),
      timeoutMs: 300_000,
    });
    if (res.status < 200 || res.status >= 300)
      throw new Error(`POST /svc/run answered ${res.status}`);
  }

  async runStatus(run: AgentDeployment): Promise<TaskStatus> {
    const runId = run.metadata.name ?? '';
    const record = await readRecord<TaskRecord>(this.runRecord(runId));
    if (!record) return { phase: 'missing' };
    if (record.phase === 'running' && !this.runs.has(runId) && record.owner !== this.instance) {
      // Started by an operator that is gone: at most once, so it is not run again.
      return {
        phase: 'failed',
        message: 'The run was interrupted by an operator restart.',
        startedAt: record.startedAt,
        finishedAt: now(),
      };
    }
    return record;
  }

  // What is left on disk (state-cleanup.ts).

  /**
   * Stops the build or run `id` if this driver is running it, and waits (a
   * few seconds at most) until it has recorded how it ended, so a removal
   * that follows is not undone by that last write.
   */
  private async settle(id: string): Promise<void> {
    this.builds.get(id)?.abort();
    const run = this.group.processes.find((p) => p.name === `run-${id}`);
    if (run) await this.group.stop(run);
    for (
      let waited = 0;
      waited < 10_000 && (this.builds.has(id) || this.runs.has(id));
      waited += 50
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
  }

  async releaseBuild(deployment: AgentDeployment): Promise<void> {
    const id = deployment.metadata.name ?? '';
    // Still served (a rollout that failed leaves the old version serving until the agent moves on).
    if ([...this.services.values()].some((s) => s.deploymentId === id)) return;
    await this.settle(id);
    await removeBuild(this.dir, id);
  }

  async forgetDeployment(_namespace: string, id: string): Promise<void> {
    for (const [agentId, running] of this.services) {
      if (running.deploymentId !== id) continue;
      this.services.delete(agentId);
      await this.dropReplacement(agentId);
      await running.service.stop();
    }
    await this.settle(id);
    await removeDeploymentState(this.dir, id);
  }

  async forgetAgent(_namespace: string, agentId: string): Promise<void> {
    const running = this.services.get(agentId);
    this.services.delete(agentId);
    await this.dropReplacement(agentId);
    await running?.service.stop();
    const schedule = this.schedules.get(agentId);
    if (schedule) clearTimeout(schedule.timer);
    this.schedules.delete(agentId);
    await removeAgentState(this.dir, agentId);
  }

  async collectOrphans(live: LiveObjects): Promise<void> {
    const removed = await removeOrphans(this.dir, live);
    if (removed.length > 0)
      this.log.info('removed the state of deleted agents and deployments', { removed });
  }

  /** Stops every process and flushes the logs and the usage reports. */
  async close(): Promise<void> {
    for (const { timer } of this.schedules.values()) clearTimeout(timer);
    await Promise.all(
      [...this.services.values(), ...this.replacements.values(), ...this.draining].map(
        ({ service }) => service.stop(),
      ),
    );
    for (const controller of this.builds.values()) controller.abort();
    await this.group.stopAll();
    await this.shipper.close();
    await this.usage.close();
  }

  /** Ensures the state directory exists. */
  async init(): Promise<this> {
    await mkdir(this.dir, { recursive: true });
    await writeModuleBoundary(join(this.dir, 'builds'));
    await removeSocketDirs(this.dir);
    this.launcher = await AgentLauncher.create({
      group: this.group,
      dir: this.dir,
      runners: this.runners,
      repoNodeModules: REPO_NODE_MODULES,
      // The front doors an agent calls: the control plane, the vector plane and the edge.
      publicUrls: [
        this.cfg.publicApiUrl,
        this.cfg.vectorsUrl,
        this.cfg.agentPort ? `http://127.0.0.1:${this.cfg.agentPort}` : undefined,
      ],
      mode: this.cfg.sandbox,
      log: this.log,
    });
    return this;
  }
}
