/**
 * The real node's processes: containerd (CRI), the kubelet, kube-proxy, CoreDNS and
 * kube-network-policies, each started in the node's process group and waited for until it
 * serves.
 */
import { existsSync } from 'node:fs';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { launch } from '../../common/component-starter.js';
import type { ProcessGroup } from '../../common/processes.js';
import { httpOk } from '../lib/probe.js';
import { toolPath } from '../lib/tools.js';
import type { NodePorts } from './configs.js';
import { sh } from './host.js';
import { NETWORK_POLICY_TABLE, NODE_IP, NODE_NAME, type NodePaths } from './layout.js';

/** Starts containerd; resolves once its socket answers. */
export async function startContainerd(group: ProcessGroup, paths: NodePaths): Promise<void> {
  const ctr = toolPath('ctr');
  const containerd = launch(group, {
    name: 'containerd',
    command: toolPath('containerd'),
    args: ['--config', paths.containerdConfig],
    // The shim and runc are found on PATH next to containerd.
    env: {
      ...process.env,
      PATH: `${toolPath('containerd').replace(/\/[^/]+$/, '')}:${process.env.PATH}`,
    },
    readyWhen: {
      probe: async () =>
        existsSync(paths.containerdSocket) &&
        (await sh(ctr, ['--address', paths.containerdSocket, 'version']).then(
          () => true,
          () => false,
        )),
    },
  });
  await group.waitReady(containerd.proc, containerd.ready, 60_000);
}

/** Imports OCI archives into the node's containerd, where the kubelet's pods find them. */
export async function importImages(paths: NodePaths, archives: string[]): Promise<void> {
  // Two at a time: unpacking a layer is mostly gunzip, one core each.
  const queue = [...archives];
  const importer = async () => {
    for (let archive = queue.shift(); archive; archive = queue.shift()) {
      await sh(toolPath('ctr'), [
        '--address',
        paths.containerdSocket,
        '--namespace',
        'k8s.io',
        'images',
        'import',
        archive,
      ]);
    }
  };
  await Promise.all([importer(), importer()]);
}

/** Starts the kubelet; resolves once its Node is Ready in the API. */
export async function startKubelet(
  group: ProcessGroup,
  paths: NodePaths,
  kc: KubeConfig,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const kubelet = launch(group, {
    name: 'kubelet',
    command: toolPath('kubelet'),
    args: [
      `--config=${paths.kubeletConfig}`,
      `--kubeconfig=${paths.kubeconfig}`,
      `--root-dir=${paths.kubeletRoot}`,
      `--cert-dir=${paths.kubeletRoot}/pki`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_IP}`,
      '--v=1',
    ],
    readyWhen: {
      probe: async () => {
        const node = await core.readNode({ name: NODE_NAME }).catch(() => null);
        return !!node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      },
    },
  });
  await group.waitReady(kubelet.proc, kubelet.ready, 120_000);
}

/** Starts kube-proxy (iptables mode); resolves once its health route answers. */
export async function startKubeProxy(
  group: ProcessGroup,
  paths: NodePaths,
  ports: NodePorts,
): Promise<void> {
  const proxy = launch(group, {
    name: 'kube-proxy',
    command: toolPath('kube-proxy'),
    args: [`--config=${paths.kubeProxyConfig}`, '--v=1'],
    readyWhen: { probe: () => httpOk(`http://127.0.0.1:${ports.kubeProxyHealthz}/healthz`) },
  });
  await group.waitReady(proxy.proc, proxy.ready, 60_000);
}

/** Starts CoreDNS on the node IP; resolves once it is ready (its Kubernetes caches synced). */
export async function startCoreDns(
  group: ProcessGroup,
  paths: NodePaths,
  ports: NodePorts,
): Promise<void> {
  const dns = launch(group, {
    name: 'coredns',
    command: toolPath('coredns'),
    args: ['-conf', paths.corefile],
    readyWhen: { probe: () => httpOk(`http://127.0.0.1:${ports.dnsReady}/ready`) },
  });
  await group.waitReady(dns.proc, dns.ready, 60_000);
}

/**
 * Starts kube-network-policies, SIG Network's NetworkPolicy enforcer (nftables rules that hand
 * the first packet of each connection of a policed pod to its nfqueue listener), for the pods
 * of this node; resolves once its rules are in the kernel. Fail-closed, its default: while it is
 * down, the policed pods get no new connection. It sees pod-to-pod and pod-to-Service traffic
 * (after kube-proxy's DNAT), not traffic to the node's own address (README, "NetworkPolicy on
 * the node").
 */
export async function startNetworkPolicies(
  group: ProcessGroup,
  paths: NodePaths,
  ports: NodePorts,
): Promise<void> {
  const enforcer = launch(group, {
    name: 'kube-network-policies',
    command: toolPath('kube-network-policies'),
    args: [
      `--kubeconfig=${paths.kubeconfig}`,
      `--hostname-override=${NODE_NAME}`,
      `--metrics-bind-address=127.0.0.1:${ports.networkPolicyMetrics}`,
      // A workaround for kernels before 6.12.
      '--netfilter-bug-1766-fix=false',
      '--v=1',
    ],
    readyWhen: {
      probe: () =>
        sh('nft', ['list', 'table', 'inet', NETWORK_POLICY_TABLE]).then(
          () => true,
          () => false,
        ),
    },
  });
  await group.waitReady(enforcer.proc, enforcer.ready, 60_000);
}
