/**
 * The command line that runs a runtime's runner for a deployment on this
 * machine. Python runtimes (3.11, 3.12, 3.13) are all served by the
 * interpreter of `.tools/runner-venv` (the machine's python3), and Node
 * runtimes (node20, node22, and their -ts variants through tsx) by the Node
 * running the operator; Bun is served by `bun` when it is on PATH.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../../../../crds/src/index.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** A process to start. */
export interface Command {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the runners and the Python interpreter live. */
export const RUNNERS = {
  pythonPackageDir: join(repoRoot, 'operator', 'runners', 'python'),
  python: join(repoRoot, '.tools', 'runner-venv', 'bin', 'python'),
  nodeRunner: join(repoRoot, 'operator', 'runners', 'node', 'runner.mjs'),
};

/** The runner command for `mode` of a deployment built into `appDir`. */
export function runnerCommand(
  runtime: Runtime,
  mode: 'serve' | 'run',
  appDir: string,
  entrypoint: string,
  port?: number,
): Command {
  const common = [
    '--app-dir',
    appDir,
    '--entrypoint',
    entrypoint,
    ...(port ? ['--port', String(port), '--host', '127.0.0.1'] : []),
  ];
  if (runtime.startsWith('python')) {
    return {
      command: RUNNERS.python,
      args: ['-m', 'svc_runner', mode, ...common],
      env: {
        PYTHONPATH: `${RUNNERS.pythonPackageDir}:${join(appDir, '.svc', 'deps')}`,
        PYTHONUNBUFFERED: '1',
      },
    };
  }
  if (runtime === 'dockerfile')
    throw new Error('The local driver cannot run Dockerfile agents; deploy them to a cluster.');
  const command = runtime === 'bun' ? 'bun' : process.execPath;
  return {
    command,
    args: [RUNNERS.nodeRunner, mode, ...common],
    env: { NODE_PATH: join(appDir, 'node_modules') },
  };
}

/** True when the machine can run `runtime` locally. */
export function runtimeAvailable(runtime: Runtime): { ok: boolean; reason?: string } {
  if (runtime === 'dockerfile')
    return { ok: false, reason: 'The local driver cannot build Dockerfiles; deploy to a cluster.' };
  if (runtime.startsWith('python') && !existsSync(RUNNERS.python)) {
    return {
      ok: false,
      reason: 'The Python runner is not installed; run `node hack/runner-venv.mjs`.',
    };
  }
  return { ok: true };
}
