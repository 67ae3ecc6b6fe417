/**
 * Real runner processes for the runner tests: temp app directories, spawning a runner on a free
 * port, waiting for its /health, stopping it with SIGTERM, and watching one that must fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root, resolved from this file so any working directory works. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A free TCP port on 127.0.0.1 (the platform's own helper). */
export { freePort } from '../../common/ports.js';

/** How a runner process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned runner with its collected output. */
export interface RunnerProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
}

/** Temp directories made by {@link makeAppDir}, removed by {@link removeAppDirs}. */
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

/** Removes every directory {@link makeAppDir} made. */
export async function removeAppDirs(): Promise<void> {
  await Promise.all(appDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Spawns a runner; output is collected, never inherited, so assertions can read it. */
export function startRunner(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): RunnerProcess {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

async function healthStatus(baseUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

/** Polls `/health` until it answers 200; fails with the runner's stderr if it exits first. */
export async function waitForHealth(
  runner: RunnerProcess,
  baseUrl: string,
  timeoutMs = 15_000,
): Promise<void> {
  let exit: Exit | undefined;
  void runner.exited.then((value) => (exit = value));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exit) {
      throw new Error(
        `runner exited (${JSON.stringify(exit)}) before healthy:\n${runner.stderr()}`,
      );
    }
    if ((await healthStatus(baseUrl)) === 200) return;
    await sleep(50);
  }
  throw new Error(`runner not healthy after ${timeoutMs} ms:\n${runner.stderr()}`);
}

/**
 * Waits for a runner that must fail and reports whether `/health` ever answered 200 meanwhile:
 * an entry point that does not load must never look healthy, not even briefly.
 */
export async function exitWithoutHealth(
  runner: RunnerProcess,
  baseUrl: string,
): Promise<{ exit: Exit; everHealthy: boolean }> {
  let exit: Exit | undefined;
  void runner.exited.then((value) => (exit = value));
  let everHealthy = false;
  const deadline = Date.now() + 15_000;
  while (!exit && Date.now() < deadline) {
    if ((await healthStatus(baseUrl)) === 200) everHealthy = true;
    await sleep(20);
  }
  return { exit: await runner.exited, everHealthy };
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
