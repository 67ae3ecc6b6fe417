/**
 * Starts the real engine (`engine/src/main.ts`) as a child process on a free loopback
 * port with its own data directory, for integration tests and benchmarks. Resolves once
 * the engine prints its ready line. The engine requires an API key: engines started here
 * get {@link TEST_ENGINE_API_KEY} unless given another, and {@link call} sends it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readyLine, startReady } from '../../../common/component-starter.js';
import { ProcessGroup } from '../../../common/processes.js';
import { generateSecret } from '../../../common/secrets.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The API key of the engines this process starts, unless one is given: random per process. */
export const TEST_ENGINE_API_KEY = generateSecret();

/** A running engine. */
export interface EngineProcess {
  url: string;
  /** The key it requires (`SVC_ENGINE_API_KEY`). */
  apiKey: string;
  dataDir: string;
  child: ChildProcess;
  /** SIGTERM and wait (a clean shutdown). */
  stop(): Promise<void>;
  /** SIGKILL and wait (a crash). */
  kill(): Promise<void>;
  /** Stops it if running and deletes its data directory and its log. */
  dispose(): Promise<void>;
}

/**
 * Starts an engine; `dataDir` reuses a directory (a restart), otherwise a fresh one is made.
 * Rejects, with the tail of its output, if it exits before its ready line.
 */
export async function startEngine(
  options: { dataDir?: string; apiKey?: string; env?: Record<string, string> } = {},
): Promise<EngineProcess> {
  const apiKey = options.apiKey ?? TEST_ENGINE_API_KEY;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-engine-')));
  const logDir = await mkdtemp(join(tmpdir(), 'svc-engine-log-'));
  const group = new ProcessGroup(logDir);
  const { proc, announced: url } = await startReady(group, {
    name: 'engine',
    command: process.execPath,
    args: ['--import', 'tsx', join(root, 'engine', 'src', 'main.ts')],
    cwd: root,
    env: {
      ...process.env,
      SVC_ENGINE_PORT: '0',
      SVC_ENGINE_HOST: '127.0.0.1',
      SVC_ENGINE_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: 'warn',
      SVC_ENGINE_API_KEY: apiKey,
      ...options.env,
    },
    readyWhen: { line: readyLine('engine') },
  }).catch(async (err: Error) => {
    await rm(logDir, { recursive: true, force: true });
    throw err;
  });
  const signal = async (name: NodeJS.Signals) => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill(name);
    await proc.exited.catch(() => undefined);
  };
  return {
    url,
    apiKey,
    dataDir,
    child: proc.child,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    dispose: async () => {
      await signal('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

/**
 * Calls the engine's REST API with `apiKey` in the `api-key` header; resolves with the
 * HTTP status and parsed body.
 */
export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  apiKey = TEST_ENGINE_API_KEY,
): Promise<{ status: number; body: { result?: unknown; status?: unknown; time?: number } }> {
  const response = await fetch(url + path, {
    method,
    headers: {
      'api-key': apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/**
 * Sends `text` as the body, byte for byte (for JSON that JSON.stringify cannot write, such
 * as `1e400` or 2^64-1), with `apiKey`; resolves with the status and the parsed answer.
 */
export async function callRaw(
  url: string,
  method: string,
  path: string,
  text: string | Buffer,
  apiKey = TEST_ENGINE_API_KEY,
): Promise<{ status: number; body: { result?: unknown; status?: unknown; time?: number } }> {
  const response = await fetch(url + path, {
    method,
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    body: text,
  });
  const answer = await response.text();
  return { status: response.status, body: answer ? JSON.parse(answer) : {} };
}
