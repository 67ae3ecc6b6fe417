/**
 * A group of child processes that live and die together. Each child is started
 * under `setpriv --pdeathsig SIGKILL` when available, so even a parent killed
 * with SIGKILL leaves nothing behind; `stopAll` ends them politely first.
 * Output goes to one log file per child; a child that exits while it is still
 * expected to run fails whoever waits on it, with the tail of its log.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const hasSetpriv =
  existsSync('/usr/bin/setpriv') &&
  spawnSync('/usr/bin/setpriv', ['--pdeathsig', 'SIGKILL', '--', 'true']).status === 0;

/** A started child process. */
export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process ends. */
  exited: Promise<number | string>;
  /**
   * Resolves once everything the process wrote is in its log file: its pipes closed after it
   * exited, or 2 s after the exit at the latest (a descendant that kept them open).
   */
  logClosed?: Promise<void>;
}

/** Options of {@link ProcessGroup.start}. */
export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with each stdout line (the log file gets it too). */
  onStdoutLine?: (line: string) => void;
  /** Called with each stderr line (the log file gets it too). */
  onStderrLine?: (line: string) => void;
  /** Extra pipes handed to the child as fds 3, 4, ... (the sandbox's info and block fds). */
  extraPipes?: number;
}

/** Calls `onLine` with each complete line of a stream's chunks. */
function lineSplitter(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
}

/** Child processes started together and stopped together. */
export class ProcessGroup {
  private readonly children: ManagedProcess[] = [];
  private stopping = false;

  /** @param logDir where each child's `<name>.log` is written */
  constructor(private readonly logDir: string) {
    mkdirSync(logDir, { recursive: true });
  }

  /** The processes started so far. */
  get processes(): readonly ManagedProcess[] {
    return this.children;
  }

  /** True once {@link stopAll} has begun: an exit from then on is expected, not a crash. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Starts a child process; its output is appended to `<logDir>/<name>.log`. */
  start(opts: StartOptions): ManagedProcess {
    const logFile = join(this.logDir, `${opts.name}.log`);
    const log = createWriteStream(logFile, { flags: 'a' });
    const [command, args] = hasSetpriv
      ? ['/usr/bin/setpriv', ['--pdeathsig', 'SIGKILL', '--', opts.command, ...opts.args]]
      : [opts.command, opts.args];
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: [
        'ignore',
        'pipe',
        'pipe',
        ...Array.from({ length: opts.extraPipes ?? 0 }, () => 'pipe' as const),
      ],
      // Its own process group, so stopping it reaches any process it forked too.
      detached: true,
    });
    const stdoutLines = opts.onStdoutLine ? lineSplitter(opts.onStdoutLine) : undefined;
    const stderrLines = opts.onStderrLine ? lineSplitter(opts.onStderrLine) : undefined;
    let logEnded = false;
    const endLog = () => {
      if (logEnded) return;
      logEnded = true;
      log.end();
    };
    const logClosed = new Promise<void>((resolve) => log.once('close', () => resolve()));
    // Output can still arrive after 'exit'; 'close' comes once the pipes are drained.
    child.once('close', endLog);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!logEnded) log.write(chunk);
      stdoutLines?.(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!logEnded) log.write(chunk);
      stderrLines?.(chunk);
    });
    const exited = new Promise<number | string>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    });
    const managed = { name: opts.name, pid: child.pid ?? -1, logFile, child, exited, logClosed };
    this.children.push(managed);
    exited
      .catch(() => undefined)
      .finally(() => {
        const fallback = setTimeout(endLog, 2_000);
        fallback.unref();
        void logClosed.then(() => clearTimeout(fallback));
        // The group lives and dies with its leader.
        killStragglers(managed);
        // A child that ended on its own is no longer the group's to stop.
        const index = this.children.indexOf(managed);
        if (index >= 0 && !this.stopping) this.children.splice(index, 1);
      });
    return managed;
  }

  /**
   * Waits until `ready()` resolves true, polling every `intervalMs`; rejects if
   * the process exits first or `timeoutMs` passes, naming the log's last lines.
   */
  async waitReady(
    proc: ManagedProcess,
    ready: () => Promise<boolean>,
    timeoutMs = 60_000,
    intervalMs = 200,
  ): Promise<void> {
    let exitedWith: number | string | undefined;
    void proc.exited
      .then((code) => (exitedWith = code))
      .catch((err: Error) => (exitedWith = err.message));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (exitedWith !== undefined) {
        // Its last words (why it exited) may still be on their way to the log.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([proc.logClosed, new Promise((r) => (timer = setTimeout(r, 2_000)))]);
        clearTimeout(timer);
        throw new Error(
          `${proc.name} exited (${exitedWith}) before it was ready\n${tail(proc.logFile)}`,
        );
      }
      if (await ready().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    throw new Error(`${proc.name} was not ready after ${timeoutMs} ms\n${tail(proc.logFile)}`);
  }

  /**
   * Stops one child: SIGTERM to its process group, SIGKILL after `graceMs`;
   * then SIGKILL to whatever of the group outlived the child itself.
   */
  async stop(proc: ManagedProcess, graceMs = 10_000): Promise<void> {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      signalGroup(proc, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(proc, 'SIGKILL'), graceMs);
      await proc.exited.catch(() => undefined);
      clearTimeout(timer);
    }
    killStragglers(proc);
    const index = this.children.indexOf(proc);
    if (index >= 0) this.children.splice(index, 1);
  }

  /** Sends SIGTERM to every child (last started first) and SIGKILL to any still alive after `graceMs`. */
  async stopAll(graceMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const proc of [...this.children].reverse()) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) continue;
      signalGroup(proc, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(proc, 'SIGKILL'), graceMs);
      await proc.exited.catch(() => undefined);
      clearTimeout(timer);
    }
    for (const proc of this.children) killStragglers(proc);
  }
}

/**
 * SIGKILL to what is left of an exited child's process group: a process it
 * forked that ignored SIGTERM, or a sandbox's inner process that the
 * sandbox's exit did not take with it (bwrap's `--die-with-parent` is armed
 * only once the sandbox is set up). A group with no member left is fine.
 */
export function killStragglers(proc: ManagedProcess): void {
  if (proc.pid <= 0) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // nothing left in the group
  }
}

/** Signals the child's whole process group; it may already be gone. */
function signalGroup(proc: ManagedProcess, signal: NodeJS.Signals): void {
  // A child that failed to spawn has no pid (-1 here): -(-1) would signal init.
  if (proc.pid <= 0) return;
  try {
    process.kill(-proc.pid, signal);
  } catch {
    proc.child.kill(signal);
  }
}

/** The last lines of a log file, for error messages. */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
