/**
 * What a machine needs to run the real node, checked before anything starts: root, the
 * binaries `hack/build-tools.sh --node` builds, iptables, nftables and conntrack, an nfqueue, overlayfs, bridged
 * traffic through netfilter, and writable cgroup hierarchies. A missing piece fails with its
 * name and how to get it; the node never starts half-way.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { toolPath, type ToolName } from '../lib/tools.js';

const run = promisify(execFile);

const NODE_TOOLS: ToolName[] = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubelet',
  'kube-proxy',
  'containerd',
  'ctr',
  'runc',
  'coredns',
  'kube-network-policies',
];

/** The problems that keep this machine from running the node (empty when it can). */
export async function nodeProblems(): Promise<string[]> {
  const problems: string[] = [];
  if (process.getuid?.() !== 0)
    problems.push('not root: the node needs root (namespaces, mounts, iptables)');
  for (const tool of NODE_TOOLS) {
    try {
      toolPath(tool);
    } catch {
      problems.push(`${tool} is not built: run \`bash hack/build-tools.sh --node\``);
    }
  }
  for (const plugin of ['bridge', 'host-local', 'loopback', 'portmap']) {
    try {
      accessSync(toolPath('runc').replace(/runc$/, plugin), constants.X_OK);
    } catch {
      problems.push(
        `the CNI plugin ${plugin} is not built: run \`bash hack/build-tools.sh --node\``,
      );
    }
  }
  for (const command of [
    'iptables',
    'iptables-save',
    'iptables-restore',
    'conntrack',
    'ip',
    'openssl',
    'nft',
  ]) {
    await run('sh', ['-c', `command -v ${command}`]).catch(() =>
      problems.push(
        `${command} is missing: apt-get install iptables conntrack iproute2 openssl nftables`,
      ),
    );
  }
  // kube-network-policies hands packets to its listener through an nfqueue.
  if (!existsSync('/proc/net/netfilter/nfnetlink_queue'))
    problems.push(
      'the kernel has no nfnetlink_queue (CONFIG_NETFILTER_NETLINK_QUEUE): NetworkPolicies cannot be enforced',
    );
  if (!readFileSync('/proc/filesystems', 'utf8').includes('overlay')) {
    problems.push('the kernel has no overlayfs (containerd unpacks images onto it)');
  }
  if (!existsSync('/proc/sys/net/bridge/bridge-nf-call-iptables')) {
    problems.push(
      'bridged traffic does not pass netfilter (load br_netfilter): Services would not work',
    );
  }
  const cgroups = existsSync('/sys/fs/cgroup/cgroup.controllers')
    ? ['/sys/fs/cgroup']
    : ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids'];
  for (const dir of cgroups) {
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      problems.push(
        `${dir} is not a writable cgroup hierarchy (the kubelet makes its pods' cgroups there)`,
      );
    }
  }
  return problems;
}

/** Throws, naming every problem, when this machine cannot run the node. */
export async function preflight(): Promise<void> {
  const problems = await nodeProblems();
  if (problems.length) {
    throw new Error(`this machine cannot run the node:\n  - ${problems.join('\n  - ')}`);
  }
}
