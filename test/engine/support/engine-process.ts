/**
 * Starts the real engine (`engine/src/main.ts`) as a child process on a free loopback
 * port with its own data directory, for integration tests and benchmarks. Resolves once
 * the engine prints its ready line. The engine requires an API key: engines started here
 * get {@link TEST_ENGINE_API_KEY} unless given another, and {@link call} sends it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
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
  /** Stops it if running and deletes its data directory. */
  dispose(): Promise<void>;
}

/** Starts an engine; `dataDir` reuses a directory (a restart), otherwise a fresh one is made. */
export async function startEngine(
  options: { dataDir?: string; apiKey?: string; env?: Record<string, string> } = {},
): Promise<EngineProcess> {
  const apiKey = options.apiKey ?? TEST_ENGINE_API_KEY;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-engine-')));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'engine', 'src', 'main.ts')],
    {
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
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { ready?: string; url?: string };
        if (parsed.ready === 'engine' && parsed.url) resolve(parsed.url);
      } catch {
        // Not a JSON line; the engine only prints JSON, but a stray line must not hang us.
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`engine exited with ${code} before ready: ${stderr}`)),
    );
  });
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return {
    url,
    apiKey,
    dataDir,
    child,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    dispose: async () => {
      await signal('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
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
