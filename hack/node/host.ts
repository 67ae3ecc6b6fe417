/**
 * What the real node changes on the host, and taking it all back: the pods' bridge, two
 * sysctls, and on stop every trace of its pods (runc containers, their cgroups, mounts under
 * the node's directories, the iptables chains of kube-proxy and the CNI plugins). The stop is
 * idempotent and works after a crash (it reads the host, not what a running node remembers).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  BRIDGE,
  NETWORK_POLICY_TABLE,
  NODE_IP,
  POD_CIDR,
  RUN_DIR,
  SERVICE_CIDR,
  type NodePaths,
} from './layout.js';

const run = promisify(execFile);

/** Runs a command; its stderr in the error when it fails. */
export async function sh(command: string, args: string[], input?: string): Promise<string> {
  if (input === undefined) return (await run(command, args, { maxBuffer: 64 << 20 })).stdout;
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`))
        : resolve(stdout),
    );
    child.stdin?.end(input);
  });
}

/** The sysctls a node needs: routing for pods, and bridged traffic through iptables (Services). */
const SYSCTLS: Record<string, string> = {
  'net/ipv4/ip_forward': '1',
  'net/bridge/bridge-nf-call-iptables': '1',
};

/** Sets the sysctls and makes the bridge with the node IP; records what to restore. */
export async function prepareHost(paths: NodePaths): Promise<void> {
  const before: Record<string, string> = {};
  for (const [key, value] of Object.entries(SYSCTLS)) {
    const file = `/proc/sys/${key}`;
    before[key] = (await readFile(file, 'utf8')).trim();
    await writeFile(file, value);
  }
  await writeFile(join(paths.dir, 'sysctl-before.json'), JSON.stringify(before));
  if (!existsSync(`/sys/class/net/${BRIDGE}`)) {
    await sh('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
  }
  const prefix = POD_CIDR.split('/')[1];
  const addresses = await sh('ip', ['-o', '-4', 'addr', 'show', 'dev', BRIDGE]);
  if (!addresses.includes(`${NODE_IP}/`)) {
    await sh('ip', ['addr', 'add', `${NODE_IP}/${prefix}`, 'dev', BRIDGE]);
  }
  await sh('ip', ['link', 'set', BRIDGE, 'up']);
  // A Service IP that kube-proxy has not translated (no rule yet, or between its two tables'
  // commits when a Service gets its first endpoint) is refused here, as in a cluster whose
  // Service range routes nowhere; on this machine it would leave by the default route, and an
  // egress proxy answered it (a wake through the edge got that proxy's 404).
  for (const chain of ['FORWARD', 'OUTPUT']) {
    const rule = ['-d', SERVICE_CIDR, '-m', 'comment', '--comment', UNTRANSLATED, '-j', 'REJECT'];
    const present = await sh('iptables', ['-C', chain, ...rule]).then(
      () => true,
      () => false,
    );
    if (!present) await sh('iptables', ['-A', chain, ...rule]);
  }
}

/** The comment of the node's rules refusing untranslated Service IPs ({@link isNodeRule} picks them). */
const UNTRANSLATED = 'svc-node KUBE-NODE-UNTRANSLATED: a Service IP kube-proxy did not translate';

/**
 * Removes every trace of the node from the host. Call after its processes have stopped; each
 * step goes on when an earlier one failed, and the failures are returned.
 */
export async function cleanHost(paths: NodePaths, runc: string): Promise<string[]> {
  const problems: string[] = [];
  const step = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      problems.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  await step('containers', () => removeContainers(paths, runc));
  await step('shims', () => killShims(paths));
  await step('cgroups', removeCgroups);
  await step('mounts', () => unmountUnder([paths.dir, RUN_DIR]));
  await step('iptables', removeRules);
  // Left by a kube-network-policies that was killed (it removes it itself on SIGTERM); while it
  // is there, the pods it policed get no new connection.
  await step('nftables', async () => {
    const tables = await sh('nft', ['list', 'tables']).catch(() => '');
    if (tables.includes(`inet ${NETWORK_POLICY_TABLE}`))
      await sh('nft', ['delete', 'table', 'inet', NETWORK_POLICY_TABLE]);
  });
  await step('bridge', async () => {
    if (existsSync(`/sys/class/net/${BRIDGE}`)) await sh('ip', ['link', 'del', BRIDGE]);
  });
  await step('sysctls', () => restoreSysctls(paths));
  await step('files', async () => {
    await rm(RUN_DIR, { recursive: true, force: true });
  });
  return problems;
}

/** Kills and deletes every container runc holds for the node (any containerd namespace). */
async function removeContainers(paths: NodePaths, runc: string): Promise<void> {
  if (!existsSync(paths.runcRoot) || !existsSync(runc)) return;
  for (const namespace of await readdir(paths.runcRoot)) {
    const root = join(paths.runcRoot, namespace);
    const ids = (await sh(runc, ['--root', root, 'list', '-q'])).split('\n').filter(Boolean);
    for (const id of ids) {
      await sh(runc, ['--root', root, 'kill', id, 'KILL']).catch(() => undefined);
      await sh(runc, ['--root', root, 'delete', '--force', id]).catch(() => undefined);
    }
  }
}

/** Kills the containerd shims of the node's containerd (they outlive it by design). */
async function killShims(paths: NodePaths): Promise<void> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    const args = argv.split('\0');
    if (!args[0]?.endsWith('containerd-shim-runc-v2')) continue;
    if (args[args.indexOf('-address') + 1] !== paths.containerdSocket) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** The cgroup v1 hierarchies (and the v2 one where there is one). */
async function hierarchies(): Promise<string[]> {
  const base = '/sys/fs/cgroup';
  if (existsSync(join(base, 'cgroup.controllers'))) return [base];
  return (await readdir(base)).map((name) => join(base, name));
}

/** Kills what is left in the kubelet's `kubepods` cgroups and removes them, deepest first. */
async function removeCgroups(): Promise<void> {
  for (const hierarchy of await hierarchies()) {
    const top = join(hierarchy, 'kubepods');
    if (!existsSync(top)) continue;
    const all = await cgroupTree(top);
    for (const dir of all) {
      const procs = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
      for (const pid of procs.split('\n').filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    for (const dir of all.reverse()) {
      for (let attempt = 0; attempt < 20; attempt++) {
        try {
          await rmdir(dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
          if (attempt === 19) throw err;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }
}

/** `dir` and every cgroup under it, parents before children. */
async function cgroupTree(dir: string): Promise<string[]> {
  const out = [dir];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out.push(...(await cgroupTree(join(dir, entry.name))));
  }
  return out;
}

/** Unmounts every mount point under `roots`, deepest (latest) first. */
export async function unmountUnder(roots: string[]): Promise<void> {
  const lines = (await readFile('/proc/self/mountinfo', 'utf8')).split('\n').filter(Boolean);
  const points = lines
    .map((line) => line.split(' ')[4]!.replace(/\\040/g, ' '))
    .filter((point) => roots.some((root) => point === root || point.startsWith(`${root}/`)));
  for (const point of points.reverse()) {
    await sh('umount', ['-l', point]).catch(() => undefined);
  }
}

/** Whether an iptables-save line belongs to kube-proxy or the CNI plugins (the node's). */
export function isNodeRule(line: string): boolean {
  return /(^|[\s:])(KUBE-|CNI-)/.test(line);
}

/** Restores every table without the lines {@link isNodeRule} picks, for IPv4 and IPv6. */
async function removeRules(): Promise<void> {
  for (const [save, restore] of [
    ['iptables-save', 'iptables-restore'],
    ['ip6tables-save', 'ip6tables-restore'],
  ] as const) {
    const saved = await sh(save, []).catch(() => '');
    if (!saved.split('\n').some(isNodeRule)) continue;
    const kept = saved
      .split('\n')
      .filter((line) => !isNodeRule(line))
      .join('\n');
    await sh(restore, [], kept);
  }
}

async function restoreSysctls(paths: NodePaths): Promise<void> {
  const file = join(paths.dir, 'sysctl-before.json');
  if (!existsSync(file)) return;
  const before = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  for (const [key, value] of Object.entries(before)) {
    await writeFile(`/proc/sys/${key}`, value).catch(() => undefined);
  }
}
