/**
 * Keeps the single-machine platform's components running: a component that
 * exits while the platform runs (a crash, a SIGKILL, an OOM kill) is started
 * again with the same command, ports, data directory and secret files, after
 * a delay that doubles with each failure in a row (0.5 s up to 30 s; back to
 * 0.5 s once an instance has served for a minute). Each exit and restart is a
 * log line and a change in the status report (common/component-status.ts),
 * which the API server's health route shows. When a component would need more
 * restarts than the policy allows within its window, the supervisor gives up:
 * it restarts nothing more and tells its owner, who stops everything.
 *
 * A component's first start is not retried: a failure there is a setup
 * problem, and the platform's start fails with it as before.
 */
import type { ManagedProcess, ProcessGroup } from '../../common/processes.js';
import {
  writeComponentReport,
  type ComponentReport,
  type ComponentState,
} from '../../common/component-status.js';

/** When to restart a component that exited, and when to give up. */
export interface RestartPolicy {
  /** Delay before the first restart after a healthy run. */
  initialDelayMs: number;
  /** The delay doubles with each failure in a row, up to this. */
  maxDelayMs: number;
  /** An instance that served this long resets the delay to `initialDelayMs`. */
  healthyResetMs: number;
  /** Give up when a component would need more than this many restarts within `windowMs`. */
  maxRestarts: number;
  windowMs: number;
  /** A restarted instance not ready within this long counts as a failed restart. */
  readyTimeoutMs: number;
}

/** The policy of `npm start`. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  healthyResetMs: 60_000,
  maxRestarts: 6,
  windowMs: 10 * 60_000,
  readyTimeoutMs: 60_000,
};

/** One started instance of a component. */
export interface Instance {
  proc: ManagedProcess;
  /** True once this instance serves. */
  ready(): Promise<boolean>;
}

/** A component the supervisor keeps running. */
export interface Component {
  name: string;
  /** The group its processes are started in (and stopped through). */
  group: ProcessGroup;
  /** Starts one instance, the same way every time. */
  launch(): Instance;
}

/** Options of {@link Supervisor}. */
export interface SupervisorOptions {
  policy?: Partial<RestartPolicy>;
  /** Progress lines: exits, restarts, giving up. */
  log?: (line: string) => void;
  /** Where the status report is written on every change. */
  statusFile?: string;
  /** Called once, when a component keeps failing; nothing is restarted after it. */
  onGiveUp?: (error: Error) => void;
  /** Called after each successful restart, with the new process. */
  onRestart?: (name: string, proc: ManagedProcess) => void;
}

interface Tracked {
  component: Component;
  proc: ManagedProcess;
  state: ComponentState;
  since: number;
  restarts: number;
  /** Times of the restarts still inside the policy's window. */
  recent: number[];
  /** Exits in a row without an instance serving `healthyResetMs`: the backoff exponent. */
  failuresInARow: number;
  readyAt: number;
  lastExit: string | null;
  lastExitAt: number | null;
  timer?: NodeJS.Timeout;
}

/** Restarts the components it was given when they exit; see the module comment. */
export class Supervisor {
  private readonly policy: RestartPolicy;
  private readonly tracked = new Map<string, Tracked>();
  private stopped = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: SupervisorOptions = {}) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...opts.policy };
  }

  /**
   * Starts a component and resolves once it is ready (throwing, with the tail
   * of its log, if it exits first or is not ready in time); from then on it is
   * restarted whenever it exits.
   */
  async start(
    component: Component,
    readyTimeoutMs = this.policy.readyTimeoutMs,
  ): Promise<ManagedProcess> {
    const instance = component.launch();
    await component.group.waitReady(instance.proc, () => instance.ready(), readyTimeoutMs);
    this.supervise(component, instance.proc);
    await this.writing;
    return instance.proc;
  }

  /** Supervises a component whose process is already started and ready. */
  supervise(component: Component, proc: ManagedProcess): void {
    const now = Date.now();
    const tracked: Tracked = {
      component,
      proc,
      state: 'running',
      since: now,
      restarts: 0,
      recent: [],
      failuresInARow: 0,
      readyAt: now,
      lastExit: null,
      lastExitAt: null,
    };
    this.tracked.set(component.name, tracked);
    this.watch(tracked, proc);
    this.writeReport();
  }

  /** The status of every supervised component. */
  report(): ComponentReport {
    const iso = (ms: number) => new Date(ms).toISOString();
    const report: ComponentReport = {};
    for (const [name, t] of this.tracked) {
      report[name] = {
        state: t.state,
        since: iso(t.since),
        restarts: t.restarts,
        last_exit: t.lastExit,
        last_exit_at: t.lastExitAt === null ? null : iso(t.lastExitAt),
      };
    }
    return report;
  }

  /** Restarts nothing from now on (call before stopping the processes); waits for the last report write. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.tracked.values()) clearTimeout(t.timer);
    await this.writing;
  }

  private watch(t: Tracked, proc: ManagedProcess): void {
    void proc.exited.then(
      (how) => this.exited(t, proc, describeExit(how)),
      (err: Error) => this.exited(t, proc, err.message),
    );
  }

  private exited(t: Tracked, proc: ManagedProcess, how: string): void {
    if (this.stopped || t.proc !== proc || t.component.group.stopped) return;
    const now = Date.now();
    if (now - t.readyAt >= this.policy.healthyResetMs) t.failuresInARow = 0;
    this.failed(t, how, now);
  }

  /** Records an exit (or a restart that never became ready) and schedules the next attempt. */
  private failed(t: Tracked, how: string, now = Date.now()): void {
    t.lastExit = how;
    t.lastExitAt = now;
    const { maxRestarts, windowMs, initialDelayMs, maxDelayMs } = this.policy;
    t.recent = t.recent.filter((at) => now - at < windowMs);
    if (t.recent.length >= maxRestarts) {
      this.giveUp(t);
      return;
    }
    const delay = Math.min(initialDelayMs * 2 ** t.failuresInARow, maxDelayMs);
    t.failuresInARow++;
    this.setState(t, 'restarting', now);
    this.log(
      `${t.component.name} exited (${how}); restarting in ${seconds(delay)} ` +
        `(restart ${t.recent.length + 1} of at most ${maxRestarts} in ${minutes(windowMs)})`,
    );
    t.timer = setTimeout(() => void this.restart(t), delay);
  }

  private async restart(t: Tracked): Promise<void> {
    if (this.stopped || t.component.group.stopped) return;
    const started = Date.now();
    t.recent.push(started);
    t.restarts++;
    let instance: Instance;
    try {
      instance = t.component.launch();
    } catch (err) {
      this.failed(t, `could not start: ${(err as Error).message}`);
      return;
    }
    t.proc = instance.proc;
    // Attached before waitReady's own handler, so it is set by the time waitReady gives up.
    let ended: string | undefined;
    instance.proc.exited.then(
      (how) => (ended = describeExit(how)),
      (err: Error) => (ended = `could not start: ${err.message}`),
    );
    try {
      await t.component.group.waitReady(
        instance.proc,
        () => instance.ready(),
        this.policy.readyTimeoutMs,
      );
    } catch {
      if (this.stopped || t.component.group.stopped) return;
      let how = ended;
      if (how === undefined) {
        how = `not ready after ${seconds(this.policy.readyTimeoutMs)}`;
        await t.component.group.stop(instance.proc);
      }
      this.log(`${t.component.name} restart failed: ${how}; see ${instance.proc.logFile}`);
      this.failed(t, how);
      return;
    }
    if (this.stopped || t.component.group.stopped) return;
    const now = Date.now();
    t.readyAt = now;
    this.setState(t, 'running', now);
    this.log(
      `${t.component.name} restarted (pid ${instance.proc.pid}, ready after ` +
        `${seconds(now - started)}; ${t.restarts} restart${t.restarts === 1 ? '' : 's'} so far)`,
    );
    this.watch(t, instance.proc);
    this.opts.onRestart?.(t.component.name, instance.proc);
  }

  private giveUp(t: Tracked): void {
    this.stopped = true;
    for (const other of this.tracked.values()) clearTimeout(other.timer);
    this.setState(t, 'failed');
    const message =
      `${t.component.name} keeps failing (last: ${t.lastExit}; ${t.recent.length} restarts ` +
      `within ${minutes(this.policy.windowMs)}); giving up and stopping the platform; ` +
      `its log: ${t.proc.logFile}`;
    this.log(message);
    this.opts.onGiveUp?.(new Error(message));
  }

  private setState(t: Tracked, state: ComponentState, now = Date.now()): void {
    t.state = state;
    t.since = now;
    this.writeReport();
  }

  private writeReport(): void {
    const file = this.opts.statusFile;
    if (!file) return;
    const report = this.report();
    this.writing = this.writing
      .then(() => writeComponentReport(file, report))
      .catch((err: Error) => this.log(`could not write ${file}: ${err.message}`));
  }

  private log(line: string): void {
    this.opts.log?.(`platform: ${line}`);
  }
}

/**
 * Starts `component` and waits until it is ready: under `supervisor` when one
 * is given (restarted from then on), else once.
 */
export async function startComponent(
  component: Component,
  supervisor: Supervisor | undefined,
  readyTimeoutMs?: number,
): Promise<ManagedProcess> {
  if (supervisor) return supervisor.start(component, readyTimeoutMs);
  const { proc, ready } = component.launch();
  await component.group.waitReady(proc, ready, readyTimeoutMs);
  return proc;
}

/** `exit code 1` or `signal SIGKILL`, from what ManagedProcess.exited resolves with. */
export function describeExit(how: number | string): string {
  return typeof how === 'number' ? `exit code ${how}` : `signal ${how}`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

function minutes(ms: number): string {
  return ms >= 60_000 ? `${Number((ms / 60_000).toFixed(1))} min` : seconds(ms);
}
