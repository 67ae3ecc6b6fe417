/**
 * The command line of one sandboxed agent process, as pure functions of what
 * it may see. The sandbox itself is bubblewrap (`bwrap`): a user, PID, mount,
 * network, IPC and UTS namespace of its own, a root filesystem that holds
 * only the system's `/usr`, a few generated `/etc` files, the runtime's
 * directories (read-only), the agent's code and a size-capped scratch `/tmp`.
 *
 * When the operator runs as root, it launches in two stages. Stage one is a
 * privileged `bwrap` that only makes the directories the agent needs
 * reachable to an unprivileged user (a runtime under `/root`, the platform's
 * state directory: none of them are traversable by other users) by
 * bind-mounting each under a private `/tmp`, then drops to the agent's own
 * unprivileged uid. Stage two is the real sandbox, set up by that
 * unprivileged user in a user namespace of its own, so nothing in it is root
 * on the host. Without root, stage two runs directly as the operator's user.
 */

/** One directory or file the sandbox sees. */
export interface SandboxMount {
  /** Path on the host. */
  source: string;
  /** Path inside the sandbox. */
  target: string;
  /** Read-write (a build's app directory); read-only otherwise. */
  writable?: boolean;
}

/** What a sandboxed process is. */
export interface SandboxSpec {
  /** The host uid (and gid) it runs as when the operator is root; null runs it as the operator's user. */
  uid: number | null;
  /** The system's top-level directories: `/usr`, and `/bin`, `/lib`... as links or directories. */
  system: Array<{ path: string; link?: string }>;
  /** Everything else it sees (runtimes, the generated /etc files, the code). */
  mounts: SandboxMount[];
  /** Size of the scratch `/tmp` (a tmpfs, so it also counts against the memory limit). */
  scratchMb: number;
  cwd: string;
  command: string;
  args: string[];
}

/** File descriptors the launcher hands the sandbox: bwrap's info (out) and block (in) pipes. */
export const INFO_FD = 3;
export const BLOCK_FD = 4;

/** Device nodes an agent gets; no others (no /dev/net/tun, no disks). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** Where stage one stages a mount for stage two. */
function staged(index: number): string {
  return `/tmp/${index}`;
}

/** The arguments of the unprivileged sandbox (stage two), reading each mount from `sourceOf`. */
function innerArgs(spec: SandboxSpec, sourceOf: (mount: SandboxMount, i: number) => string) {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--hostname',
    'agent',
  ];
  for (const entry of spec.system) {
    if (entry.link) args.push('--symlink', entry.link, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  // No devpts and no `--dev`: either would make bwrap nest a second user namespace, which the
  // network helper could not join.
  args.push('--proc', '/proc', '--tmpfs', '/dev');
  for (const device of DEVICES) args.push('--dev-bind', `/dev/${device}`, `/dev/${device}`);
  args.push('--tmpfs', '/dev/shm');
  args.push('--size', String(spec.scratchMb * 1024 * 1024), '--tmpfs', '/tmp');
  spec.mounts.forEach((mount, i) => {
    args.push(mount.writable ? '--bind' : '--ro-bind', sourceOf(mount, i), mount.target);
  });
  args.push(
    '--chdir',
    spec.cwd,
    '--info-fd',
    String(INFO_FD),
    '--block-fd',
    String(BLOCK_FD),
    '--',
    spec.command,
    ...spec.args,
  );
  return args;
}

/** The whole command line: `bwrap` (stage one, as root) or stage two directly. */
export function sandboxCommand(
  spec: SandboxSpec,
  paths: { bwrap: string; setpriv: string },
): { command: string; args: string[] } {
  if (spec.uid === null) {
    return { command: paths.bwrap, args: innerArgs(spec, (m) => m.source) };
  }
  const outer = ['--bind', '/', '/', '--tmpfs', '/tmp'];
  spec.mounts.forEach((mount, i) => {
    outer.push(mount.writable ? '--bind' : '--ro-bind', mount.source, staged(i));
  });
  outer.push(
    '--cap-add',
    'CAP_SETUID',
    '--cap-add',
    'CAP_SETGID',
    '--die-with-parent',
    '--',
    paths.setpriv,
    `--reuid=${spec.uid}`,
    `--regid=${spec.uid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--',
    paths.bwrap,
    ...innerArgs(spec, (_m, i) => staged(i)),
  );
  return { command: paths.bwrap, args: outer };
}

/**
 * The host uid an agent runs as: one per agent, stable across restarts, in a
 * range no distribution hands to its users (1,000,000 to 1,999,999).
 */
export function agentUid(agentId: string): number {
  let hash = 2166136261;
  for (const ch of agentId) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 16777619) >>> 0;
  }
  return 1_000_000 + (hash % 1_000_000);
}
