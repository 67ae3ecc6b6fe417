/**
 * Starts agent processes of the local driver in a sandbox (see
 * ./sandbox-args.ts for what it sees and ./network.ts for what it reaches;
 * a service is reached only on the Unix socket in its {@link SOCKET_DIR}),
 * each with its memory and process count bounded by a cgroup where the
 * machine allows one (./cgroups.ts). {@link Sandbox.probe} checks once, at
 * start, that the machine can do all of it by running a sandbox for real, and
 * says why not when it cannot.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../../../../../common/logger.js';
import { ProcessGroup, type ManagedProcess } from '../../../../../common/processes.js';
import type { RunnerPaths } from '../runner-command.js';
import { AgentCgroup, describeCgroups, detectCgroups, type CgroupSupport } from './cgroups.js';
import { pastaArgs, SANDBOX_DNS } from './network.js';
import { SandboxRecords } from './sandbox-records.js';
import {
  agentUid,
  BLOCK_FD,
  INFO_FD,
  sandboxCommand,
  type SandboxMount,
  type SandboxSpec,
} from './sandbox-args.js';

/** Where the agent's code is inside every sandbox. */
export const APP_DIR = '/app';
/** A directory the runner reports through (its error file), writable, outside the code. */
export const STATUS_DIR = '/run/svc';
/**
 * Where a service's socket directory is seen: the runner listens on a Unix socket in it, and the
 * edge connects to that socket's file on the host (./network.ts says why not a port).
 */
export const SOCKET_DIR = '/run/sock';

/** One process to start in a sandbox. */
export interface SandboxLaunch {
  /** Process name (its log file is `<name>.log`). */
  name: string;
  agentId: string;
  command: string;
  args: string[];
  /** The whole environment the process gets (nothing of the operator's own is added). */
  env: Record<string, string>;
  /** The deployment's code on the host, seen at {@link APP_DIR}. */
  appDir: string;
  /** A build writes into the code directory (dependencies); agents never do. */
  appWritable: boolean;
  /** A host directory seen at {@link STATUS_DIR}, read-write. */
  statusDir?: string;
  memoryMb: number;
  pidsMax: number;
  scratchMb: number;
  /** A service: its socket directory on the host, seen read-write at {@link SOCKET_DIR}. */
  socketDir?: string;
  /**
   * Let the command start as soon as its cgroup holds it, and wire the network beside it
   * instead of before (needs a `statusDir`): for a service, whose runner loads its own server
   * meanwhile and imports the user's code only once the file SVC_AWAIT_NETWORK names exists,
   * which is made when pasta is done; so a wake from zero waits for the longer of the two.
   */
  networkAfterStart?: boolean;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
}

/** A started sandboxed process. */
export interface SandboxedProcess extends ManagedProcess {
  /** Resolves once the sandbox is wired and the command started; rejects (and kills it) if not. */
  setup: Promise<void>;
  /** True once it has exited, if the kernel killed it for exceeding its memory. */
  outOfMemory: boolean;
}

/** Tools the sandbox runs, found once. */
interface Tools {
  bwrap: string;
  pasta: string;
  setpriv: string;
}

function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** The system's top-level directories as the sandbox copies them: links stay links. */
function systemDirs(): SandboxSpec['system'] {
  const out: SandboxSpec['system'] = [];
  for (const path of ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(path)) continue;
    const stat = lstatSync(path);
    out.push(stat.isSymbolicLink() ? { path, link: readlinkSync(path) } : { path });
  }
  return out;
}

/** Directories never bound whole into a sandbox, whatever a runtime's path suggests. */
const NEVER_BOUND = new Set([
  '/',
  '/tmp',
  '/root',
  '/home',
  '/etc',
  '/var',
  '/run',
  '/opt',
  '/srv',
]);

/**
 * What the runtimes need, outside `/usr`, each bound at its own path: the
 * directories they live in, and the Bun binary itself (it may be a link from
 * anywhere, SVC_BUN_PATH; the sandbox sees the file it points to at the
 * link's path). Never a directory that holds `stateDir`.
 */
function runtimeMounts(
  runners: RunnerPaths,
  repoNodeModules: string,
  stateDir: string,
): SandboxMount[] {
  const dirs = new Set<string>();
  const state = resolve(stateDir);
  const add = (dir: string) => {
    const path = resolve(dir);
    if (!existsSync(path) || path === '/usr' || path.startsWith('/usr/')) return;
    if (NEVER_BOUND.has(path) || state === path || state.startsWith(`${path}/`)) return;
    dirs.add(path);
  };
  if (existsSync(runners.python)) {
    add(dirname(dirname(runners.python)));
    const base = spawnSync(runners.python, ['-c', 'import sys; print(sys.base_prefix)'], {
      encoding: 'utf8',
    });
    if (base.status === 0) add(base.stdout.trim());
  }
  add(runners.pythonPackageDir);
  add(dirname(runners.nodeRunner));
  // The Node runner resolves tsx (TypeScript entry points) from the repository's packages.
  add(repoNodeModules);
  add(dirname(dirname(realpathSync(process.execPath))));
  const mounts: SandboxMount[] = [...dirs].map((d) => ({ source: d, target: d }));
  if (existsSync(runners.bun))
    mounts.push({ source: realpathSync(runners.bun), target: runners.bun });
  return mounts;
}

/** Host /etc entries an agent reads (certificates, the loader's cache), when present. */
const HOST_ETC = [
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/ld.so.cache',
  '/etc/alternatives',
  '/etc/pip.conf',
];

/** The sandboxes of one local driver. */
export class Sandbox {
  private constructor(
    private readonly tools: Tools,
    private readonly cgroups: CgroupSupport,
    private readonly base: { system: SandboxSpec['system']; mounts: SandboxMount[] },
    private readonly publicPorts: number[],
    private readonly asRoot: boolean,
    /** What each running sandbox left on the host, for a restart after a crash to end. */
    private readonly records: SandboxRecords,
  ) {}

  /** What the sandbox gives, for the operator's log. */
  describe(): string {
    return (
      `agents run sandboxed (bwrap: own user, PID, mount and network namespaces; ` +
      `${this.asRoot ? 'a uid of their own' : "the operator's uid"}; network through pasta, ` +
      `host loopback closed except ports ${this.publicPorts.join(', ') || 'none'}); ` +
      describeCgroups(this.cgroups)
    );
  }

  /** The uid an agent's processes run as (null: the operator's own). */
  uidOf(agentId: string): number | null {
    return this.asRoot ? agentUid(agentId) : null;
  }

  /**
   * Sets the sandbox up for this machine and runs one for real; the reason when
   * it cannot (no bwrap or pasta, no user namespaces, no usable /dev/net/tun).
   */
  static async probe(opts: {
    stateDir: string;
    runners: RunnerPaths;
    repoNodeModules: string;
    publicPorts: number[];
    log: Logger;
  }): Promise<Sandbox | { unavailable: string }> {
    const bwrap = which('bwrap');
    const pasta = which('pasta');
    const setpriv = which('setpriv');
    if (!bwrap || !pasta || !setpriv)
      return {
        unavailable: `missing ${[!bwrap && 'bwrap (bubblewrap)', !pasta && 'pasta (passt)', !setpriv && 'setpriv'].filter(Boolean).join(', ')}`,
      };
    const asRoot = process.getuid?.() === 0;
    if (asRoot) openTun(opts.log);
    const etc = join(opts.stateDir, 'sandbox-etc');
    await writeEtc(etc);
    const mounts: SandboxMount[] = [
      ...['passwd', 'group', 'hosts', 'resolv.conf', 'nsswitch.conf'].map((f) => ({
        source: join(etc, f),
        target: `/etc/${f}`,
      })),
      ...HOST_ETC.filter((p) => existsSync(p)).map((p) => ({ source: p, target: p })),
      ...runtimeMounts(opts.runners, opts.repoNodeModules, opts.stateDir),
    ];
    // Sandboxes a killed operator of this state directory left running end before any starts.
    const records = new SandboxRecords(join(opts.stateDir, 'sandboxes'));
    const reaped = await records.reapLeftovers();
    if (reaped > 0)
      opts.log.warn('ended the sandboxes of a previous run of this operator', {
        processes: reaped,
      });
    const sandbox = new Sandbox(
      { bwrap, pasta, setpriv },
      await detectCgroups(),
      { system: systemDirs(), mounts },
      opts.publicPorts,
      asRoot,
      records,
    );
    const probeDir = join(opts.stateDir, 'sandbox-probe');
    await mkdir(probeDir, { recursive: true });
    try {
      await sandbox.check(probeDir);
    } catch (err) {
      return { unavailable: (err as Error).message };
    }
    return sandbox;
  }

  /** Runs `true` in a sandbox, network included, and fails with its stderr if it does not. */
  private async check(appDir: string): Promise<void> {
    const group = new ProcessGroup(join(appDir, 'logs'));
    const errors: string[] = [];
    const proc = this.start(group, {
      name: 'sandbox-probe',
      agentId: 'sandbox-probe',
      command: '/bin/sh',
      args: ['-c', 'exit 0'],
      env: { PATH: '/usr/bin:/bin' },
      appDir,
      appWritable: false,
      memoryMb: 64,
      pidsMax: 16,
      scratchMb: 1,
      onStderrLine: (line) => errors.push(line),
    });
    const [setup, code] = await Promise.allSettled([proc.setup, proc.exited]);
    if (setup.status === 'rejected') throw setup.reason as Error;
    if (code.status === 'rejected' || code.value !== 0)
      throw new Error(`a test sandbox failed: ${errors.join(' | ') || String(code)}`);
  }

  /** Starts `launch` in a sandbox of its own. */
  start(group: ProcessGroup, launch: SandboxLaunch): SandboxedProcess {
    const uid = this.uidOf(launch.agentId);
    const spec: SandboxSpec = {
      uid,
      system: this.base.system,
      mounts: [
        ...this.base.mounts,
        { source: launch.appDir, target: APP_DIR, writable: launch.appWritable },
        ...(launch.statusDir
          ? [{ source: launch.statusDir, target: STATUS_DIR, writable: true }]
          : []),
        ...(launch.socketDir
          ? [{ source: launch.socketDir, target: SOCKET_DIR, writable: true }]
          : []),
      ],
      scratchMb: launch.scratchMb,
      cwd: APP_DIR,
      command: launch.command,
      args: launch.args,
    };
    const { command, args } = sandboxCommand(spec, this.tools);
    // The file the runner of a process started before its network waits for (one per process).
    const ready =
      launch.networkAfterStart && launch.statusDir
        ? `network-ready-${randomBytes(6).toString('hex')}`
        : null;
    const networkReady = ready && launch.statusDir ? join(launch.statusDir, ready) : null;
    const proc = group.start({
      name: launch.name,
      command,
      args,
      env: ready ? { ...launch.env, SVC_AWAIT_NETWORK: `${STATUS_DIR}/${ready}` } : launch.env,
      cwd: '/',
      extraPipes: 2,
      onStdoutLine: launch.onStdoutLine,
      onStderrLine: launch.onStderrLine,
    });
    let cgroup: AgentCgroup | null = null;
    let pastaPid: number | null = null;
    let record: string | null = null;
    const sandboxed = proc as SandboxedProcess;
    sandboxed.outOfMemory = false;
    sandboxed.setup = this.wire(
      proc,
      launch,
      networkReady,
      uid,
      (c) => (cgroup = c),
      (pid) => (pastaPid = pid),
      (file) => (record = file),
    );
    sandboxed.setup.catch(() => {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    const exited = proc.exited;
    sandboxed.exited = exited.then(async (code) => {
      // The block pipe is ours to write: a sandbox that ended before its setup let it go would
      // leave it open for good (node ends a child's stdin on exit, not its other pipes).
      (proc.child.stdio[BLOCK_FD] as Writable | null)?.destroy();
      // pasta runs in the background for as long as it is let; it goes with its sandbox.
      await sandboxed.setup.catch(() => undefined);
      stopPasta(pastaPid);
      if (networkReady) await rm(networkReady, { force: true });
      if (record) await this.records.forget(record);
      const current = cgroup as AgentCgroup | null;
      if (current) {
        sandboxed.outOfMemory = await current.outOfMemory();
        await current.remove();
      }
      return code;
    });
    return sandboxed;
  }

  /** Reads the sandbox's pid, bounds it with a cgroup, connects its network, lets it run. */
  private async wire(
    proc: ManagedProcess,
    launch: SandboxLaunch,
    /** The file that says the network is up, to its runner; null: it starts after the network. */
    networkReady: string | null,
    uid: number | null,
    keep: (cgroup: AgentCgroup) => void,
    keepPasta: (pid: number) => void,
    keepRecord: (file: string) => void,
  ): Promise<void> {
    const info = proc.child.stdio[INFO_FD] as Readable;
    const block = proc.child.stdio[BLOCK_FD] as Writable;
    block.on('error', () => undefined);
    // The cgroup is made while bwrap sets the sandbox up (named after bwrap's own pid, known
    // at once), and kept as soon as it exists so that the sandbox's end removes it whatever
    // happens next.
    const [child, made] = await Promise.allSettled([
      readChildPid(info, proc),
      AgentCgroup.create(this.cgroups, `${launch.name}-${proc.pid}`, {
        memoryMb: launch.memoryMb,
        pidsMax: launch.pidsMax,
      }),
    ]);
    if (made.status === 'fulfilled' && made.value) keep(made.value);
    if (child.status === 'rejected') throw child.reason as Error;
    if (made.status === 'rejected') throw made.reason as Error;
    const pid = child.value;
    await made.value?.add(pid);
    await waitForUidMap(pid);
    const name = `${launch.name}-${pid}`;
    if (networkReady) {
      // Recorded before it runs: the sandbox's first process takes the rest with it.
      keepRecord(await this.records.record(name, [proc.pid, pid]));
      block.end('1');
    }
    const pastaPid = await runPasta(
      this.tools.pasta,
      pastaArgs({ publicPorts: this.publicPorts, runAs: uid }, pid),
      uid,
    );
    if (pastaPid !== null) keepPasta(pastaPid);
    keepRecord(
      await this.records.record(name, [proc.pid, pid, ...(pastaPid !== null ? [pastaPid] : [])]),
    );
    if (networkReady) await writeFile(networkReady, '');
    else block.end('1');
  }
}

/** bwrap's info JSON carries the sandbox's pid on the host. */
function readChildPid(info: Readable, proc: ManagedProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      try {
        const pid = (JSON.parse(text) as { 'child-pid'?: number })['child-pid'];
        if (typeof pid === 'number') {
          info.off('data', onData);
          info.resume();
          resolve(pid);
        }
      } catch {
        // not all of it yet
      }
    };
    info.on('data', onData);
    info.on('error', reject);
    void proc.exited.then(
      (code) => reject(new Error(`the sandbox exited (${code}) before it was set up`)),
      reject,
    );
  });
}

/** The user namespace is usable once bwrap has written its uid map. */
async function waitForUidMap(pid: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const map = await readFile(`/proc/${pid}/uid_map`, 'utf8').catch(() => null);
    if (map === null) throw new Error('the sandbox exited before it was set up');
    if (map.trim()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error('the sandbox user namespace was not mapped in 1 s');
}

/**
 * pasta forks into the background once the namespace is wired; its exit says
 * whether it was. Resolves with the background pasta's pid (from `--pid`), so
 * it can be stopped with its sandbox: it does not quit by itself when the
 * sandbox's processes end.
 */
async function runPasta(
  pasta: string,
  args: string[],
  runAs: number | null,
): Promise<number | null> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pasta-'));
  // pasta writes the file as the user it runs as (`--runas`).
  if (runAs !== null) await chown(dir, runAs, runAs);
  const pidFile = join(dir, 'pid');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(pasta, ['--pid', pidFile, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('exit', (code) => {
        if (code === 0) return resolve();
        const reason = stderr
          .split('\n')
          .filter((l) => l && !l.startsWith('Failed to send'))
          .join(' | ');
        reject(new Error(`pasta could not connect the sandbox (exit ${code}): ${reason}`));
      });
    });
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Stops a background pasta (gone already is fine). */
function stopPasta(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/**
 * pasta opens /dev/net/tun as the agent's user inside its namespace. Distributions make the
 * node 0666 (opening it grants nothing: a tap device needs CAP_NET_ADMIN in the namespace);
 * a machine without udev may leave it 0600, so root makes it so.
 */
function openTun(log: Logger): void {
  try {
    const mode = statSync('/dev/net/tun').mode & 0o777;
    if ((mode & 0o006) !== 0o006) {
      chmodSync('/dev/net/tun', 0o666);
      log.info('made /dev/net/tun 0666 (the distribution default) so sandboxes get a network');
    }
  } catch {
    // no tun device: the probe says so
  }
}

/** The /etc files every sandbox gets: the agent's user, localhost, DNS through pasta. */
async function writeEtc(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const files: Record<string, string> = {
    passwd:
      'root:x:0:0:root:/root:/usr/sbin/nologin\nagent:x:1000:1000:agent:/tmp:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
    group: 'root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n',
    hosts: '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n',
    'resolv.conf': `nameserver ${SANDBOX_DNS}\n`,
    'nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
  };
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, name), text, { mode: 0o644 });
  }
}
