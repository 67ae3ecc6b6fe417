/**
 * Real runner processes for the runner tests: temp app directories, starting a runner on a free
 * port (through the shared component starter), waiting for its /health, stopping it with
 * SIGTERM, and watching one that must fail.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { launch, waitUntilReady } from '../../common/component-starter.js';
import { ProcessGroup, type ManagedProcess } from '../../common/processes.js';
import { httpOk } from '../../hack/lib/probe.js';
import { waitFor } from '../harness/wait.js';

/** The repository root, resolved from this file so any working directory works. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A free TCP port on 127.0.0.1 (the platform's own helper). */
export { freePort } from '../../common/ports.js';

/** How a runner process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A started runner with its collected output. */
export interface RunnerProcess {
  child: ChildProcess;
  /** The runner in its process group (log file, exit), as the component starter started it. */
  proc: ManagedProcess;
  group: ProcessGroup;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
}

/** Temp directories made by {@link makeAppDir} and for runners' logs, removed by {@link removeAppDirs}. */
const appDirs: string[] = [];

/** Writes `files` (relative path → content) into a new temp directory and returns its path. */
export async function makeAppDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-runner-'));
  appDirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  return dir;
}

/** Removes every directory {@link makeAppDir} made, and the runners' log directories. */
export async function removeAppDirs(): Promise<void> {
  await Promise.all(appDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * Starts a runner with the shared component starter (its readiness is its /health, which
 * {@link waitForHealth} waits for); output is collected, never inherited, so assertions can read it.
 */
export function startRunner(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RunnerProcess {
  const logs = mkdtempSync(join(tmpdir(), 'svc-runner-logs-'));
  appDirs.push(logs);
  const group = new ProcessGroup(logs);
  const { proc } = launch(group, { name: 'runner', command, args, ...options, readyWhen: {} });
  const { child } = proc;
  let stdout = '';
  let stderr = '';
  // Decoded here, not with setEncoding: the process group's own listeners write the bytes to the log.
  const out = new StringDecoder('utf8');
  const err = new StringDecoder('utf8');
  child.stdout?.on('data', (chunk: Buffer) => (stdout += out.write(chunk)));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += err.write(chunk)));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, proc, group, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Whether the runner at `baseUrl` answers its /health with 200. */
function healthy(baseUrl: string): Promise<boolean> {
  return httpOk(`${baseUrl}/health`, { timeoutMs: 1000 });
}

/**
 * Waits (with the component starter) until `/health` answers 200; fails with the runner's log
 * if it exits first or is not healthy in time, and stops it then.
 */
export async function waitForHealth(
  runner: RunnerProcess,
  baseUrl: string,
  timeoutMs = 15_000,
): Promise<void> {
  await waitUntilReady(
    runner.group,
    { proc: runner.proc, ready: () => healthy(baseUrl) },
    timeoutMs,
  );
}

/**
 * Waits for a runner that must fail and reports whether `/health` ever answered 200 meanwhile:
 * an entry point that does not load must never look healthy, not even briefly. A runner says
 * on stderr when it listens, so `/health` is asked each time the runner writes anything (a
 * question waits in the listen queue until the server answers it or the process is gone).
 * Fails, and kills the runner, if it has not exited within 15 s.
 */
export async function exitWithoutHealth(
  runner: RunnerProcess,
  baseUrl: string,
): Promise<{ exit: Exit; everHealthy: boolean }> {
  let exit: Exit | undefined;
  const exited = runner.exited.then((value) => (exit = value));
  const probes: Promise<boolean>[] = [];
  const probe = () => void probes.push(httpOk(`${baseUrl}/health`, { timeoutMs: 15_000 }));
  runner.child.stdout?.on('data', probe);
  runner.child.stderr?.on('data', probe);
  try {
    await waitFor('the runner to exit (its entry point must not load)', () => exit, {
      timeoutMs: 15_000,
      wakeOn: (changed) => {
        void exited.then(changed, changed);
        return () => undefined;
      },
      lastSeen: () => runner.stderr().slice(-400),
    });
  } catch (err) {
    runner.child.kill('SIGKILL');
    await runner.exited;
    throw err;
  } finally {
    runner.child.stdout?.off('data', probe);
    runner.child.stderr?.off('data', probe);
  }
  const everHealthy = (await Promise.all(probes)).includes(true);
  return { exit: exit!, everHealthy };
}

/** SIGTERM, then the exit; SIGKILL if the runner has not stopped within `graceMs`. */
export async function stopRunner(runner: RunnerProcess, graceMs = 10_000): Promise<Exit> {
  if (runner.child.exitCode !== null || runner.child.signalCode !== null) return runner.exited;
  runner.child.kill('SIGTERM');
  const timer = setTimeout(() => runner.child.kill('SIGKILL'), graceMs);
  try {
    return await runner.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** The part of the `ws` package's client the tests use. */
interface WebSocketClient {
  on(event: 'open', listener: () => void): this;
  on(event: 'message', listener: (data: Buffer) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  send(data: string): void;
  terminate(): void;
}

/**
 * Opens a WebSocket, sends `text` if given, and resolves with the first message received.
 * Node 20 has no stable WebSocket client; `ws` is in node_modules (a dependency of
 * @kubernetes/client-node) but ships no types, hence the require and the local interface.
 */
export async function firstWebSocketMessage(url: string, text?: string): Promise<string> {
  const WebSocket = createRequire(import.meta.url)('ws') as new (url: string) => WebSocketClient;
  const socket = new WebSocket(url);
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.on('open', () => {
        if (text !== undefined) socket.send(text);
      });
      socket.on('message', (data) => resolve(String(data)));
      socket.on('error', reject);
    });
  } finally {
    socket.terminate();
  }
}
