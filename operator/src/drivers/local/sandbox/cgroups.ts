/**
 * Memory and process-count limits for sandboxed agent processes, through a
 * cgroup of their own where the machine lets the operator make one:
 * cgroup v1 (the `memory` and `pids` hierarchies) or cgroup v2 (a delegated
 * subtree with the memory and pids controllers). Each sandbox gets a child
 * cgroup under `svc-agents/` of the operator's own cgroup, so the limits nest
 * inside whatever bounds the operator itself; the child is removed when the
 * process ends.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What limits this machine allows, and why not when it does not. */
export type CgroupSupport =
  | { kind: 'v1'; memoryRoot: string; pidsRoot: string }
  | { kind: 'v2'; root: string }
  | { kind: 'none'; reason: string };

/** Limits of one sandbox. */
export interface CgroupLimits {
  memoryMb: number;
  pidsMax: number;
}

const CGROUP_FS = '/sys/fs/cgroup';
const SUBTREE = 'svc-agents';

/** The operator's own cgroup path in each v1 hierarchy (by controller) and in v2 (key ''). */
export function parseProcCgroup(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers = '', path = '/'] = match;
    for (const controller of controllers.split(',')) paths.set(controller, path);
  }
  return paths;
}

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

/** Finds out whether the operator can make cgroups with memory and pids limits. */
export async function detectCgroups(): Promise<CgroupSupport> {
  let own: Map<string, string>;
  try {
    own = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    return { kind: 'none', reason: 'no /proc/self/cgroup' };
  }
  const memory = join(CGROUP_FS, 'memory');
  const pids = join(CGROUP_FS, 'pids');
  if (existsSync(join(memory, 'memory.limit_in_bytes')) || own.has('memory')) {
    if (existsSync(memory) && existsSync(pids) && own.has('memory') && own.has('pids')) {
      const memoryRoot = join(memory, own.get('memory') ?? '/', SUBTREE);
      const pidsRoot = join(pids, own.get('pids') ?? '/', SUBTREE);
      if ((await writable(memoryRoot)) && (await writable(pidsRoot)))
        return { kind: 'v1', memoryRoot, pidsRoot };
      return {
        kind: 'none',
        reason: `cgroup v1 is mounted but ${memoryRoot} or ${pidsRoot} cannot be created`,
      };
    }
  }
  if (existsSync(join(CGROUP_FS, 'cgroup.controllers')) && own.has('')) {
    return detectV2(join(CGROUP_FS, own.get('') ?? '/'));
  }
  return { kind: 'none', reason: 'neither a cgroup v1 memory+pids pair nor cgroup v2 is mounted' };
}

/**
 * cgroup v2 allows controllers only in a subtree without processes of its own:
 * the operator moves itself into a leaf (`svc-operator`) beside `svc-agents`,
 * then enables memory and pids for the children. This needs a delegated
 * subtree (systemd's Delegate=yes, or root).
 */
async function detectV2(own: string): Promise<CgroupSupport> {
  try {
    const available = (await readFile(join(own, 'cgroup.controllers'), 'utf8')).split(/\s+/);
    if (!available.includes('memory') || !available.includes('pids'))
      return {
        kind: 'none',
        reason: `cgroup v2 without the memory and pids controllers at ${own}`,
      };
    const leaf = join(own, 'svc-operator');
    await mkdir(leaf, { recursive: true });
    await writeFile(join(leaf, 'cgroup.procs'), String(process.pid));
    await writeFile(join(own, 'cgroup.subtree_control'), '+memory +pids');
    const root = join(own, SUBTREE);
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'cgroup.subtree_control'), '+memory +pids');
    return { kind: 'v2', root };
  } catch (err) {
    return {
      kind: 'none',
      reason: `cgroup v2 subtree at ${own} is not delegated (${(err as Error).message})`,
    };
  }
}

/** Says in one line what {@link detectCgroups} found, for the operator's log. */
export function describeCgroups(support: CgroupSupport): string {
  if (support.kind === 'v1')
    return `cgroup v1: memory and process-count limits under ${support.memoryRoot} and ${support.pidsRoot}`;
  if (support.kind === 'v2')
    return `cgroup v2: memory and process-count limits under ${support.root}`;
  return `no cgroup limits: ${support.reason}; agents' memory_mb and process counts are NOT enforced`;
}

/** The cgroup (one per controller on v1) of one sandboxed process tree. */
export class AgentCgroup {
  private constructor(private readonly dirs: string[]) {}

  /** Makes the cgroup `name` with `limits`; null when the machine has no cgroups for us. */
  static async create(
    support: CgroupSupport,
    name: string,
    limits: CgroupLimits,
  ): Promise<AgentCgroup | null> {
    const bytes = String(limits.memoryMb * 1024 * 1024);
    if (support.kind === 'v1') {
      const memory = join(support.memoryRoot, name);
      const pids = join(support.pidsRoot, name);
      await mkdir(memory, { recursive: true });
      await mkdir(pids, { recursive: true });
      await writeFile(join(memory, 'memory.limit_in_bytes'), bytes);
      // Without swap accounting the file is absent; with it, swap must not stretch the limit.
      await writeFile(join(memory, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
      await writeFile(join(pids, 'pids.max'), String(limits.pidsMax));
      return new AgentCgroup([memory, pids]);
    }
    if (support.kind === 'v2') {
      const dir = join(support.root, name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'memory.max'), bytes);
      await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await writeFile(join(dir, 'pids.max'), String(limits.pidsMax));
      return new AgentCgroup([dir]);
    }
    return null;
  }

  /** Moves `pid` (and so everything it starts from now on) into the cgroup. */
  async add(pid: number): Promise<void> {
    for (const dir of this.dirs) await writeFile(join(dir, 'cgroup.procs'), String(pid));
  }

  /** True when the kernel killed a process of this cgroup for running out of memory. */
  async outOfMemory(): Promise<boolean> {
    for (const dir of this.dirs) {
      for (const file of ['memory.oom_control', 'memory.events']) {
        const text = await readFile(join(dir, file), 'utf8').catch(() => '');
        const kills = /^oom_kill (\d+)$/m.exec(text);
        if (kills && Number(kills[1]) > 0) return true;
      }
    }
    return false;
  }

  /** Removes the cgroup once its processes are gone (retrying briefly while they exit). */
  async remove(): Promise<void> {
    for (const dir of this.dirs) {
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          await rmdir(dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }
}
