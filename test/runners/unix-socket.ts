/**
 * A runner served on a Unix socket (`serve --socket PATH`), as the local driver runs it: a
 * socket path in a fresh directory, and a wait for its /health there.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unixEndpoint } from '../../common/agent-endpoint.js';
import { waitUntilReady } from '../../common/component-starter.js';
import {
  requestService,
  type ServiceAnswer,
} from '../../operator/src/drivers/local/service-request.js';
import type { RunnerProcess } from './runner-process.js';

/** A socket path in a new temp directory (short: Unix socket paths are at most 107 bytes). */
export async function socketPath(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'svc-sock-')), 'app.sock');
}

/**
 * Leaves a socket file at `path` that nothing listens on, as a crashed service does (a Node
 * server would remove its own on close; Python's does not).
 */
export function leaveStaleSocket(path: string): void {
  const bound = spawnSync('python3', [
    '-c',
    'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
    path,
  ]);
  if (bound.status !== 0) throw new Error(`could not leave a socket at ${path}: ${bound.stderr}`);
}

/** One GET to `path` of the runner listening on `socket`. */
export function getOverSocket(socket: string, path: string): Promise<ServiceAnswer> {
  return requestService(unixEndpoint(socket), path, { timeoutMs: 2000 });
}

/**
 * Waits (with the component starter, as waitForHealth does on a port) until `/health`
 * on `socket` answers 200; fails with the runner's log if it exits first or is not healthy in
 * time, and stops it then.
 */
export async function waitForSocketHealth(
  runner: RunnerProcess,
  socket: string,
  timeoutMs = 15_000,
): Promise<void> {
  const healthy = async () =>
    (await getOverSocket(socket, '/health').catch(() => null))?.status === 200;
  await waitUntilReady(runner.group, { proc: runner.proc, ready: healthy }, timeoutMs);
}
