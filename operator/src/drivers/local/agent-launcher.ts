/**
 * How the local driver starts an agent's processes (its build tools, its
 * service, its runs): in a sandbox when the machine allows one (./sandbox/),
 * and otherwise as plain child processes for one account only. Without a
 * sandbox the agents of two accounts could read each other's code and keys,
 * so the first account to run anything is the only one admitted (recorded in
 * the driver's directory, so a restart keeps it), and every other account's
 * build, service and run fails saying why.
 */
import { chmod, chown, lchown, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Agent } from '../../../../crds/src/index.js';
import type { Logger } from '../../../../common/logger.js';
import type { ManagedProcess, ProcessGroup, StartOptions } from '../../../../common/processes.js';
import { toolOutput, type ToolRunner } from './builder.js';
import type { RunnerPaths } from './runner-command.js';
import { loopbackPort } from './sandbox/network.js';
import { APP_DIR, Sandbox, SOCKET_DIR, STATUS_DIR } from './sandbox/sandbox.js';

/** The name of a service's Unix socket in its socket directory. */
export const SOCKET_NAME = 'app.sock';

/** Threads and processes one agent process tree may have; a build (npm) gets more. */
const PIDS_MAX = 512;
const BUILD_PIDS_MAX = 2048;
/** A build's memory floor and scratch space: package managers need room whatever the plan. */
const BUILD_MEMORY_MB = 2048;
const BUILD_SCRATCH_MB = 1024;

/**
 * The machine's own settings for reaching the network (certificate bundles, proxies, package
 * indexes) that agents and their builds inherit: /etc/ssl is in every sandbox, so a bundle path
 * there works inside too. Nothing else of the operator's environment reaches an agent.
 */
const MACHINE_ENV =
  /^(SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|NODE_EXTRA_CA_CERTS|PIP_CERT|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|PIP_TRUSTED_HOST|PIP_DEFAULT_TIMEOUT|NPM_CONFIG_REGISTRY|NPM_CONFIG_CAFILE|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy)$/;

/** The variables of `env` that {@link MACHINE_ENV} lets through. */
export function machineEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] => MACHINE_ENV.test(e[0]) && e[1] !== undefined,
    ),
  );
}

/** What {@link AgentLauncher.start} needs beyond the process itself. */
export interface AgentProcess extends StartOptions {
  agent: Agent;
  /** The code on the host. */
  appDir: string;
  memoryMb: number;
  /** A service: the host directory of the Unix socket the edge reaches it on. */
  socketDir?: string;
  /** A host directory the runner writes its error file into. */
  statusDir?: string;
}

/** Starts agent processes, sandboxed or, for one account only, not. */
export class AgentLauncher {
  private constructor(
    private readonly group: ProcessGroup,
    private readonly sandbox: Sandbox | null,
    private readonly unconfinedReason: string,
    private readonly accountFile: string,
    private readonly log: Logger,
  ) {}

  /**
   * Probes the machine (see {@link Sandbox.probe}) and says in the log what
   * isolation agents get. `required` refuses to go on without a sandbox.
   */
  static async create(opts: {
    group: ProcessGroup;
    dir: string;
    runners: RunnerPaths;
    repoNodeModules: string;
    publicUrls: Array<string | undefined>;
    mode: 'auto' | 'required';
    log: Logger;
  }): Promise<AgentLauncher> {
    const publicPorts = opts.publicUrls
      .map(loopbackPort)
      .filter((p): p is number => p !== null && p > 0);
    const probed = await Sandbox.probe({
      stateDir: opts.dir,
      runners: opts.runners,
      repoNodeModules: opts.repoNodeModules,
      publicPorts,
      log: opts.log,
    });
    const accountFile = join(opts.dir, 'unconfined-account');
    if (probed instanceof Sandbox) {
      opts.log.info(probed.describe());
      return new AgentLauncher(opts.group, probed, '', accountFile, opts.log);
    }
    const reason = `agents cannot be sandboxed on this machine: ${probed.unavailable}`;
    if (opts.mode === 'required') throw new Error(`${reason} (SVC_SANDBOX=required)`);
    opts.log.warn(
      `${reason}. Agents run UNCONFINED, as the operator's user with its view of the machine, ` +
        'so only the first account to run an agent is admitted; install bubblewrap and passt ' +
        '(Debian: apt-get install bubblewrap passt) to run agents of several accounts.',
    );
    return new AgentLauncher(opts.group, null, reason, accountFile, opts.log);
  }

  /** True when agents run sandboxed. */
  get sandboxed(): boolean {
    return this.sandbox !== null;
  }

  /** Null when `agent` may run here; otherwise why not (its failure message). */
  async admit(agent: Agent): Promise<string | null> {
    if (this.sandbox) return null;
    const account = agent.spec.userId;
    const admitted = (await readFile(this.accountFile, 'utf8').catch(() => '')).trim();
    if (!admitted) {
      await writeFile(this.accountFile, `${account}\n`, { mode: 0o600 });
      this.log.warn(`unconfined agents: account ${account} is the one account admitted`);
      return null;
    }
    if (admitted === account) return null;
    return `This machine cannot sandbox agents (${this.unconfinedReason}), so it runs the agents of one account only.`;
  }

  /** The directory the runner and build tools see the code in. */
  appDirOf(hostAppDir: string): string {
    return this.sandbox ? APP_DIR : hostAppDir;
  }

  /** A service's Unix socket: where the runner listens on it, and its file on the host. */
  socketOf(socketDir: string): { runner: string; host: string } {
    const host = join(socketDir, SOCKET_NAME);
    return { runner: this.sandbox ? join(SOCKET_DIR, SOCKET_NAME) : host, host };
  }

  /** The runner's error file: where the runner writes it, and where the driver reads it. */
  errorFileOf(statusDir: string): { runner: string; host: string } {
    const host = join(statusDir, 'runner-error.txt');
    return { runner: this.sandbox ? join(STATUS_DIR, 'runner-error.txt') : host, host };
  }

  /** The environment every agent process starts from, before the agent's own variables. */
  baseEnv(): Record<string, string> {
    if (this.sandbox) {
      return {
        ...machineEnv(),
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: '/tmp',
        TMPDIR: '/tmp',
        USER: 'agent',
        LOGNAME: 'agent',
        LANG: 'C.UTF-8',
      };
    }
    return {
      ...machineEnv(),
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      LANG: process.env.LANG ?? 'C.UTF-8',
    };
  }

  /** Makes `dir` writable by the agent's user (its build's output, its runner's status). */
  async handOver(agent: Agent, dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const uid = this.sandbox?.uidOf(agent.metadata.name ?? '') ?? null;
    if (uid !== null) await chownTree(dir, uid);
  }

  /**
   * Makes a service's socket directory: 0700 and the agent's own, so its sandbox can create the
   * socket there and no other agent's user can reach it (the operator, and so the edge, can).
   */
  async makeSocketDir(agent: Agent, dir: string): Promise<void> {
    await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o700);
    const uid = this.sandbox?.uidOf(agent.metadata.name ?? '') ?? null;
    if (uid !== null) await chown(dir, uid, uid);
  }

  /** Starts an agent's service or run process. */
  start(proc: AgentProcess): ManagedProcess {
    if (!this.sandbox) return this.group.start(proc);
    const sandboxed = this.sandbox.start(this.group, {
      name: proc.name,
      agentId: proc.agent.metadata.name ?? '',
      command: proc.command,
      args: proc.args,
      env: Object.fromEntries(
        Object.entries(proc.env ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      // A service's runner waits for the network itself, before it imports the user's code.
      networkAfterStart: Boolean(proc.socketDir),
      appDir: proc.appDir,
      appWritable: false,
      statusDir: proc.statusDir,
      memoryMb: proc.memoryMb,
      pidsMax: PIDS_MAX,
      scratchMb: Math.max(64, Math.min(proc.memoryMb, 1024)),
      socketDir: proc.socketDir,
      onStdoutLine: proc.onStdoutLine,
      onStderrLine: proc.onStderrLine,
    });
    sandboxed.setup.catch((err: Error) =>
      proc.onStderrLine?.(`the sandbox could not be set up: ${err.message}`),
    );
    const exited = sandboxed.exited;
    // The kernel's verdict, in words: SIGKILL alone does not say "out of memory".
    sandboxed.exited = exited.then((code) => {
      if (sandboxed.outOfMemory)
        proc.onStderrLine?.(
          `killed: the agent exceeded its memory limit (memory_mb ${proc.memoryMb})`,
        );
      return code;
    });
    return sandboxed;
  }

  /** How a build runs its tools: in the agent's sandbox, with its code writable. */
  buildTools(
    agent: Agent,
    memoryMb: number,
  ): ((appDir: string) => Promise<{ run: ToolRunner; toolDir: string }>) | undefined {
    const sandbox = this.sandbox;
    if (!sandbox) return undefined;
    return async (appDir) => {
      await this.handOver(agent, appDir);
      const run: ToolRunner = (label, command, args, output, signal, env = {}) =>
        new Promise((resolve, reject) => {
          const lines = toolOutput(output);
          const proc = sandbox.start(this.group, {
            name: `build-${agent.metadata.name}-${Date.now()}`,
            agentId: agent.metadata.name ?? '',
            command,
            args,
            env: { ...this.baseEnv(), NPM_CONFIG_UPDATE_NOTIFIER: 'false', ...env },
            appDir,
            appWritable: true,
            memoryMb: Math.max(memoryMb, BUILD_MEMORY_MB),
            pidsMax: BUILD_PIDS_MAX,
            scratchMb: BUILD_SCRATCH_MB,
            onStdoutLine: lines.line,
            onStderrLine: lines.line,
          });
          const abort = () => void this.group.stop(proc, 2000);
          signal.addEventListener('abort', abort, { once: true });
          proc.setup.catch((err: Error) => lines.line(`the sandbox failed: ${err.message}`));
          void proc.exited.then(
            (code) => {
              signal.removeEventListener('abort', abort);
              if (code === 0) resolve();
              else if (proc.outOfMemory)
                reject(
                  new Error(
                    `${label} ran out of memory (limit ${Math.max(memoryMb, BUILD_MEMORY_MB)} MB)`,
                  ),
                );
              else reject(lines.failure(label, code));
            },
            (err: Error) => reject(err),
          );
        });
      return { run, toolDir: APP_DIR };
    };
  }
}

/** chown -R without following links. */
async function chownTree(dir: string, uid: number): Promise<void> {
  await chown(dir, uid, uid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(path, uid);
    else await lchown(path, uid, uid);
  }
}
