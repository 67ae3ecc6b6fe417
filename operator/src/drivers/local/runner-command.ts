/**
 * The command line that runs a runtime's runner for a deployment on this
 * machine. Python runtimes (3.11, 3.12, 3.13) are all served by the
 * interpreter of `.tools/runner-venv` (the machine's python3), Node runtimes
 * (node20, node22, and their -ts variants through tsx) by the Node running the
 * operator, and `bun` by the Bun that `hack/bun.mjs` installs into `.tools/bun`
 * (or SVC_BUN_PATH), running the same Node runner.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '../../../../crds/src/index.js';
import type { OperatorConfig } from '../../config.js';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** A process to start. */
export interface Command {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the runners and the interpreters that run them live. */
export interface RunnerPaths {
  pythonPackageDir: string;
  python: string;
  nodeRunner: string;
  bun: string;
}

/** The platform's installation (this repository). */
export const REPO_ROOT = repoRoot.replace(/\/+$/, '');

/** The repository's npm packages, where the Node runner finds tsx. */
export const REPO_NODE_MODULES = join(repoRoot, 'node_modules');

/** The runners and interpreters as the project's own scripts install them. */
export const RUNNERS: RunnerPaths = {
  pythonPackageDir: join(repoRoot, 'operator', 'runners', 'python'),
  python: join(repoRoot, '.tools', 'runner-venv', 'bin', 'python'),
  nodeRunner: join(repoRoot, 'operator', 'runners', 'node', 'runner.mjs'),
  bun: join(repoRoot, '.tools', 'bun', 'bin', 'bun'),
};

/** The paths the local driver uses: {@link RUNNERS}, with Bun at SVC_BUN_PATH when it is set. */
export function runnerPaths(cfg: Pick<OperatorConfig, 'bunPath'>): RunnerPaths {
  return { ...RUNNERS, bun: cfg.bunPath ?? RUNNERS.bun };
}

/**
 * Where `serve` listens: a Unix socket (what the local driver uses, see README "Isolation"), or a
 * loopback port (the runner tests).
 */
export type Listen = { socket: string } | { port: number };

function listenArgs(listen: Listen | undefined): string[] {
  if (!listen) return [];
  if ('socket' in listen) return ['--socket', listen.socket];
  return ['--port', String(listen.port), '--host', '127.0.0.1'];
}

/** The runner command for `mode` (`check`: the build's compile check) of a deployment built into `appDir`. */
export function runnerCommand(
  paths: RunnerPaths,
  runtime: Runtime,
  mode: 'serve' | 'run' | 'check',
  appDir: string,
  entrypoint: string,
  listen?: Listen,
): Command {
  const common = ['--app-dir', appDir, '--entrypoint', entrypoint, ...listenArgs(listen)];
  if (runtime.startsWith('python')) {
    return {
      command: paths.python,
      args: ['-m', 'svc_runner', mode, ...common],
      env: {
        PYTHONPATH: `${paths.pythonPackageDir}:${join(appDir, '.svc', 'deps')}`,
        PYTHONUNBUFFERED: '1',
      },
    };
  }
  if (runtime === 'dockerfile')
    throw new Error('The local driver cannot run Dockerfile agents; deploy them to a cluster.');
  // Bun would otherwise install a missing import from the registry at run time (its
  // auto-install, on when the app has no node_modules): dependencies come from the build only.
  const [command, flags] =
    runtime === 'bun' ? [paths.bun, ['--no-install']] : [process.execPath, []];
  return {
    command,
    args: [...flags, paths.nodeRunner, mode, ...common],
    env: { NODE_PATH: join(appDir, 'node_modules') },
  };
}

/**
 * True when the machine can run `runtime` locally; otherwise the reason, which becomes the
 * deployment's or run's error_message.
 */
export function runtimeAvailable(
  paths: RunnerPaths,
  runtime: Runtime,
): { ok: true } | { ok: false; reason: string } {
  if (runtime === 'dockerfile')
    return { ok: false, reason: 'The local driver cannot build Dockerfiles; deploy to a cluster.' };
  if (runtime.startsWith('python') && !existsSync(paths.python)) {
    return {
      ok: false,
      reason: 'The Python runner is not installed; run `node hack/runner-venv.mjs`.',
    };
  }
  if (runtime === 'bun' && !existsSync(paths.bun)) {
    return {
      ok: false,
      reason: `Bun is not installed at ${paths.bun}; run \`node hack/bun.mjs\` or set SVC_BUN_PATH.`,
    };
  }
  return { ok: true };
}
