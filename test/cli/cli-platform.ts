/**
 * What the CLI tests run `svc` against: the real control plane, the operator
 * with the local driver (real Python agents) and, when asked, the vector
 * plane over the same accounts; one account (enterprise, so polling builds
 * never meets a rate limit meant for people), and a home directory of its own
 * for the CLI's config.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../apiserver/control-plane-server.js';
import { startLocalOperator, type LocalOperator } from '../operator/local-operator.js';
import { startVectorServer, type VectorServer } from '../vector/vector-server.js';
import { waitFor, type ChangeSource, type WaitOptions } from '../harness/wait.js';

/** The agents' domain in these tests. */
export const CLI_AGENT_DOMAIN = 'agents.localtest';

/** A running platform for the CLI. */
export interface CliPlatform {
  server: TestServer;
  owner: Caller;
  operator: LocalOperator;
  vectors: VectorServer | null;
  /** A temporary directory the tests work in (removed by stop). */
  home: string;
  /** The environment of a child `svc`: none of this process's SVC_* settings, config under home. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Starts the platform; `withVectors` adds the vector plane. */
export async function startCliPlatform(withVectors = false): Promise<CliPlatform> {
  const server = await startControlPlaneServer();
  const owner = await createCaller(server, { tier: 'enterprise' });
  const operator = await startLocalOperator(server, (ns) => ns === owner.namespace, {
    overrides: { agentDomain: CLI_AGENT_DOMAIN },
  });
  const vectors = withVectors ? await startVectorServer({ db: server.db }) : null;
  const home = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  return {
    server,
    owner,
    operator,
    vectors,
    home,
    env: (extra = {}) => {
      const inherited = Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith('SVC_')),
      );
      return { ...inherited, XDG_CONFIG_HOME: join(home, 'config'), NO_COLOR: '1', ...extra };
    },
    stop: async () => {
      await vectors?.close();
      await operator.stop();
      await server.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Options of {@link until}: waitFor's, and what to read before each check. */
export interface UntilOptions extends WaitOptions {
  /** Reads what `check` looks at (runs `svc`, say), before each check. */
  refresh?: () => Promise<void>;
}

/**
 * Resolves once `check` holds (after `refresh`, when given), checking again whenever `wakeOn`
 * reports a change; throws naming `what` after `timeoutMs` (see waitFor).
 */
export async function until(
  what: string,
  check: () => boolean,
  { refresh, ...options }: UntilOptions,
): Promise<void> {
  await waitFor(
    what,
    async () => {
      await refresh?.();
      return check();
    },
    options,
  );
}

/** Change events of a child's output: each chunk it writes to stdout or stderr, and its exit. */
export function outputOf(child: ChildProcess): ChangeSource {
  return (changed) => {
    child.stdout?.on('data', changed);
    child.stderr?.on('data', changed);
    child.on('close', changed);
    return () => {
      child.stdout?.off('data', changed);
      child.stderr?.off('data', changed);
      child.off('close', changed);
    };
  };
}
