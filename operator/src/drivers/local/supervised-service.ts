/**
 * One agent service process on this machine: started by its runner on a Unix
 * socket in a directory of its own (the edge's way in; README "Isolation"),
 * ready once `/health` answers there, restarted with exponential
 * backoff when it crashes. An entry point that does not load (the runner's
 * exit code 3) is never restarted and never ready; its interpreter message is
 * kept as the failure.
 */
import { rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { unixEndpoint } from '../../../../common/agent-endpoint.js';
import type { ManagedProcess, ProcessGroup, StartOptions } from '../../../../common/processes.js';
import type { Command } from './runner-command.js';
import { requestService } from './service-request.js';

/** How often a starting service's health is asked: a waking request waits on it (#25 item 3). */
const HEALTH_POLL_MS = 5;
/** Exit code of a runner whose entry point failed to import or lacks `app`. */
export const IMPORT_FAILED = 3;

/** Where a service stands. */
export type ServiceState = 'starting' | 'ready' | 'backoff' | 'failed' | 'stopped';

/** Options of a {@link SupervisedService}. */
export interface ServiceOptions {
  name: string;
  command: Command;
  cwd: string;
  env: Record<string, string>;
  /**
   * The Unix socket the runner listens on, as a host path. Its directory is this service's
   * alone: it is removed, socket and all, when the service stops.
   */
  socket: string;
  errorFile: string;
  /** The error file's path as the runner sees it (inside a sandbox); `errorFile` otherwise. */
  runnerErrorFile?: string;
  /** Starts the process (in a sandbox); the group's own `start` otherwise. */
  launch?: (start: StartOptions) => ManagedProcess;
  onStdout: (line: string) => void;
  onStderr: (line: string) => void;
  onEvent: (message: string, level: 'INFO' | 'WARN' | 'ERROR') => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Called with each stretch of time a process of the service ran: from its
   * start to its exit, cut every `machineCheckpointMs` while it keeps running
   * (so a long-lived service's time is seen before it stops).
   */
  onMachine?: (startedAt: Date, stoppedAt: Date) => void;
  /** Default 5 minutes. */
  machineCheckpointMs?: number;
}

/** A supervised service process. */
export class SupervisedService {
  state: ServiceState = 'starting';
  failure: string | null = null;
  private proc: ManagedProcess | null = null;
  private restarts = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** When the current process was started (ms since the epoch). */
  private startedAt = 0;

  constructor(
    private readonly group: ProcessGroup,
    readonly opts: ServiceOptions,
  ) {}

  /** The address the service listens on (`unix:<socket>`). */
  get endpoint(): string {
    return unixEndpoint(this.opts.socket);
  }

  /** Starts the process (once). */
  start(): void {
    if (this.stopped) return;
    this.state = 'starting';
    // The socket a crashed process left would make the next one fail to listen.
    rmSync(this.opts.socket, { force: true });
    const { command, env } = this.opts;
    const start: StartOptions = {
      name: this.opts.name,
      command: command.command,
      args: command.args,
      cwd: this.opts.cwd,
      env: {
        ...env,
        ...command.env,
        SVC_RUNNER_ERROR_FILE: this.opts.runnerErrorFile ?? this.opts.errorFile,
      },
      onStdoutLine: this.opts.onStdout,
      onStderrLine: this.opts.onStderr,
    };
    this.startedAt = Date.now();
    this.proc = this.opts.launch ? this.opts.launch(start) : this.group.start(start);
    const proc = this.proc;
    const stopMetering = this.meter();
    void this.waitHealthy(proc);
    void proc.exited.then((code) => {
      stopMetering();
      return this.onExit(proc, code);
    });
  }

  /** Reports the running process's time in stretches; the returned function ends the last one. */
  private meter(): () => void {
    const onMachine = this.opts.onMachine;
    if (!onMachine) return () => undefined;
    let from = new Date();
    const cut = () => {
      const to = new Date();
      onMachine(from, to);
      from = to;
    };
    const checkpoint = setInterval(cut, this.opts.machineCheckpointMs ?? 5 * 60_000).unref();
    return () => {
      clearInterval(checkpoint);
      cut();
    };
  }

  private async waitHealthy(proc: ManagedProcess): Promise<void> {
    while (this.proc === proc && this.state === 'starting') {
      try {
        const res = await requestService(this.endpoint, '/health', { timeoutMs: 1000 });
        if (res.status >= 200 && res.status < 300) {
          this.state = 'ready';
          // How long the start took is part of what a waking request waits (bench/local-platform).
          const tookMs = Date.now() - this.startedAt;
          this.opts.onEvent(
            `service started on ${this.endpoint} (answering ${tookMs} ms after its process started)`,
            'INFO',
          );
          // A service that stays up a minute starts its backoff over.
          setTimeout(() => {
            if (this.proc === proc && this.state === 'ready') this.restarts = 0;
          }, 60_000).unref();
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
    }
  }

  private async onExit(proc: ManagedProcess, code: number | string): Promise<void> {
    if (this.proc !== proc || this.stopped) return;
    if (code === IMPORT_FAILED) {
      const message = (await readFile(this.opts.errorFile, 'utf8').catch(() => '')).trim();
      this.fail(message || 'The entry point failed to load.');
      return;
    }
    const delay = Math.min(
      (this.opts.initialBackoffMs ?? 1000) * 2 ** this.restarts,
      this.opts.maxBackoffMs ?? 30_000,
    );
    this.restarts++;
    this.state = 'backoff';
    this.opts.onEvent(
      `service exited (${code}); restarting in ${(delay / 1000).toFixed(1)} s`,
      'WARN',
    );
    this.timer = setTimeout(() => this.start(), delay);
  }

  /** Fails the service without starting it, when it cannot run at all. */
  fail(reason: string): void {
    this.failure = reason;
    this.state = 'failed';
    this.opts.onEvent(`service failed to start: ${reason}`, 'ERROR');
  }

  /** Stops the process and any pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const proc = this.proc;
    this.proc = null;
    this.state = 'stopped';
    if (proc) await this.group.stop(proc, 10_000);
    await rm(dirname(this.opts.socket), { recursive: true, force: true });
  }
}
