/**
 * A real single-node Kubernetes on this machine: etcd, a kube-apiserver whose `kubernetes`
 * Service reaches it from pods, kube-controller-manager and kube-scheduler; containerd with
 * runc and the CNI bridge; a kubelet registered as the Node `svc-node`; kube-proxy for Service
 * IPs; CoreDNS for in-cluster names; kube-network-policies enforcing NetworkPolicies. Everything runs as host processes of one group, with its
 * state in one directory; {@link NodeCluster.stop} stops them and removes every trace from the
 * host (hack/node/host.ts). Needs root (namespaces, mounts, iptables, cgroups).
 */
import { readdir, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { freePort } from '../../common/ports.js';
import { ProcessGroup } from '../../common/processes.js';
import {
  startControllerManager,
  startEtcd,
  startKubeApiserver,
  startScheduler,
} from '../control-plane/components.js';
import { writeKubeconfig } from '../control-plane/kubeconfig.js';
import { ensurePki } from '../control-plane/pki.js';
import { toolPath } from '../lib/tools.js';
import {
  containerdConfig,
  cniConfig,
  corefile,
  kubeletConfig,
  kubeProxyConfig,
  type NodePorts,
} from './configs.js';
import {
  importImages,
  startContainerd,
  startCoreDns,
  startKubelet,
  startKubeProxy,
  startNetworkPolicies,
} from './components.js';
import { cleanHost, prepareHost } from './host.js';
import { kubeletClientCertificate } from './kubelet-client.js';
import { NODE_IP, RUN_DIR, nodePaths, type NodePaths } from './layout.js';
import { preflight } from './preflight.js';

/** Options of {@link startNode}. */
export interface NodeOptions {
  /** The node's state directory (removed by its stop). */
  dir: string;
  /** OCI archives to import into its containerd before the kubelet starts. */
  images?: string[];
  /** Progress lines. */
  log?: (line: string) => void;
}

/** A running node. */
export interface NodeCluster {
  paths: NodePaths;
  kubeconfigPath: string;
  kc: KubeConfig;
  /** The kube-apiserver as the host reaches it. */
  apiServerUrl: string;
  processes: ProcessGroup;
  /** Stops every process and removes the node from the host; the problems it met, if any. */
  stop(): Promise<string[]>;
}

/** Brings the node up; on any failure takes down what it started and rethrows. */
export async function startNode(opts: NodeOptions): Promise<NodeCluster> {
  const log = opts.log ?? (() => undefined);
  const started = Date.now();
  const step = (what: string) =>
    log(`node: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  await preflight();
  const paths = nodePaths(opts.dir);
  const runc = toolPath('runc');
  // What an earlier node left (a crash, a kill -9) goes first.
  await cleanHost(paths, runc);
  await rm(opts.dir, { recursive: true, force: true });
  for (const dir of [paths.logs, paths.cniConf, paths.cniIpam, paths.kubeletRoot, RUN_DIR]) {
    await mkdir(dir, { recursive: true });
  }
  await mkdir(join(opts.dir, 'containerd'), { recursive: true });
  const group = new ProcessGroup(paths.logs);
  const stop = async () => {
    await group.stopAll();
    return cleanHost(paths, runc);
  };
  try {
    await prepareHost(paths);
    step('bridge and sysctls set');
    const pki = await ensurePki(join(opts.dir, 'pki'));
    const client = await kubeletClientCertificate(pki);
    const etcdUrl = await startEtcd(group, join(opts.dir, 'etcd'), { fsync: false });
    const apiServerUrl = await startKubeApiserver(
      group,
      etcdUrl,
      pki,
      join(opts.dir, 'pki', 'serving'),
      undefined,
      {
        extraArgs: [
          // Pods reach it through the `kubernetes` Service, whose endpoint is the node IP.
          '--bind-address=0.0.0.0',
          `--advertise-address=${NODE_IP}`,
          '--endpoint-reconciler-type=lease',
          // The node's name is not in any resolver: the kubelet is reached at its InternalIP.
          '--kubelet-preferred-address-types=InternalIP',
          `--kubelet-client-certificate=${client.cert}`,
          `--kubelet-client-key=${client.key}`,
        ],
      },
    );
    await writeKubeconfig(paths.kubeconfig, apiServerUrl, pki);
    const kc = new KubeConfig();
    kc.loadFromFile(paths.kubeconfig);
    step(`kube-apiserver ready at ${apiServerUrl}`);
    await Promise.all([
      startControllerManager(group, paths.kubeconfig, pki),
      startScheduler(group, paths.kubeconfig, pki),
    ]);
    step('kube-controller-manager and kube-scheduler ready');

    const [
      kubelet,
      kubeletHealthz,
      kubeProxyHealthz,
      kubeProxyMetrics,
      dnsHealth,
      dnsReady,
      networkPolicyMetrics,
    ] = await distinctFreePorts(7);
    const ports: NodePorts = {
      kubelet: kubelet!,
      kubeletHealthz: kubeletHealthz!,
      kubeProxyHealthz: kubeProxyHealthz!,
      kubeProxyMetrics: kubeProxyMetrics!,
      dnsHealth: dnsHealth!,
      dnsReady: dnsReady!,
      networkPolicyMetrics: networkPolicyMetrics!,
    };
    await writeFile(paths.containerdConfig, containerdConfig(paths, runc));
    await writeFile(join(paths.cniConf, '10-svc-node.conflist'), cniConfig(paths));
    await writeFile(paths.kubeletConfig, kubeletConfig(paths, ports, pki.caCert));
    await writeFile(paths.kubeProxyConfig, kubeProxyConfig(paths, ports));
    await writeFile(paths.corefile, corefile(paths, ports));
    await startContainerd(group, paths);
    step('containerd ready');
    if (opts.images?.length) {
      await importImages(paths, opts.images);
      step(`${opts.images.length} image archive(s) imported`);
    }
    await Promise.all([
      startKubelet(group, paths, kc).then(() => step('kubelet ready: Node svc-node is Ready')),
      startKubeProxy(group, paths, ports).then(() => step('kube-proxy ready')),
      startCoreDns(group, paths, ports).then(() => step('CoreDNS ready')),
      startNetworkPolicies(group, paths, ports).then(() =>
        step('kube-network-policies ready: NetworkPolicies enforced'),
      ),
    ]);
    return { paths, kubeconfigPath: paths.kubeconfig, kc, apiServerUrl, processes: group, stop };
  } catch (err) {
    const problems = await stop();
    if (problems.length) log(`node: cleaning up after the failure: ${problems.join('; ')}`);
    throw err;
  }
}

/** `count` free loopback ports, no two the same (free ports are picked one at a time). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** The OCI archives in `dir` (hack/images.sh --local writes them to .dev/images). */
export async function archivesIn(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => n.endsWith('.tar')).map((n) => join(dir, n));
}
