/**
 * The real node's configuration files, rendered from its layout and ports: containerd's (CRI
 * with runc and CNI), the pod network's (bridge + host-local + portmap, loopback implied), the
 * kubelet's, kube-proxy's and CoreDNS's. Pure: hack/node/index.ts writes them.
 */
import { stringify } from 'yaml';
import { BRIDGE, CLUSTER_DOMAIN, NODE_IP, NODE_NAME, POD_CIDR, type NodePaths } from './layout.js';

/** The image every pod's sandbox runs (built here from the kubelet's own pause.c). */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

/** Ports the node's components listen on (loopback, except the kubelet's API on the node IP). */
export interface NodePorts {
  kubelet: number;
  kubeletHealthz: number;
  kubeProxyHealthz: number;
  kubeProxyMetrics: number;
  dnsHealth: number;
  dnsReady: number;
  /** kube-network-policies' metrics (it listens on every address unless told). */
  networkPolicyMetrics: number;
}

/** containerd's config.toml (version 3): CRI with the built runc and the node's CNI. */
export function containerdConfig(paths: NodePaths, runc: string): string {
  return `version = 3
root = ${JSON.stringify(paths.containerdRoot)}
state = ${JSON.stringify(paths.containerdState)}

[grpc]
  address = ${JSON.stringify(paths.containerdSocket)}

[ttrpc]
  address = ${JSON.stringify(`${paths.containerdSocket}.ttrpc`)}

[plugins."io.containerd.cri.v1.runtime"]
  # Pods' network namespaces under the state directory, so that the node's stop finds them.
  netns_mounts_under_state_dir = true
  # Without CAP_SYS_RESOURCE (this machine's root lacks it) no process may lower its OOM score:
  # the kubelet's -998 for sandboxes is clamped to containerd's own score instead of failing.
  restrict_oom_score_adj = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = ${JSON.stringify(runc)}
        Root = ${JSON.stringify(paths.runcRoot)}
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = [${JSON.stringify(paths.cniBin)}]
    conf_dir = ${JSON.stringify(paths.cniConf)}
    max_conf_num = 1

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = ${JSON.stringify(PAUSE_IMAGE)}
`;
}

/** The pod network: one bridge with the node IP as gateway, masquerade out, host ports. */
export function cniConfig(paths: NodePaths): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: NODE_NAME,
      plugins: [
        {
          type: 'bridge',
          bridge: BRIDGE,
          isGateway: true,
          ipMasq: true,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: POD_CIDR, gateway: NODE_IP }]],
            routes: [{ dst: '0.0.0.0/0' }],
            dataDir: paths.cniIpam,
          },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  );
}

/**
 * The kubelet's KubeletConfiguration. Its API (logs, exec) is on the node IP and takes only
 * client certificates of the node's CA (the kube-apiserver's); cgroup v1 is allowed (this
 * machine has no v2 controllers); eviction thresholds are low so that a full disk of a
 * development machine does not evict the test pods.
 */
export function kubeletConfig(paths: NodePaths, ports: NodePorts, caFile: string): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: NODE_IP,
    port: ports.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: ports.kubeletHealthz,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: caFile },
    },
    authorization: { mode: 'Webhook' },
    containerRuntimeEndpoint: `unix://${paths.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    failCgroupV1: false,
    failSwapOn: false,
    clusterDNS: [NODE_IP],
    clusterDomain: CLUSTER_DOMAIN,
    resolvConf: '/etc/resolv.conf',
    podLogsDir: `${paths.dir}/pod-logs`,
    maxPods: 110,
    serializeImagePulls: false,
    evictionHard: {
      'memory.available': '100Mi',
      'nodefs.available': '1%',
      'nodefs.inodesFree': '1%',
      'imagefs.available': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // The node's status every 2 s and a short grace, so that a test sees changes soon.
    nodeStatusUpdateFrequency: '2s',
    syncFrequency: '10s',
  });
}

/** kube-proxy's KubeProxyConfiguration: iptables mode, conntrack sysctls left as they are. */
export function kubeProxyConfig(paths: NodePaths, ports: NodePorts): string {
  return stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
    kind: 'KubeProxyConfiguration',
    clientConnection: { kubeconfig: paths.kubeconfig },
    mode: 'iptables',
    clusterCIDR: POD_CIDR,
    hostnameOverride: NODE_NAME,
    healthzBindAddress: `127.0.0.1:${ports.kubeProxyHealthz}`,
    metricsBindAddress: `127.0.0.1:${ports.kubeProxyMetrics}`,
    conntrack: {
      maxPerCore: 0,
      min: 0,
      tcpEstablishedTimeout: '0s',
      tcpCloseWaitTimeout: '0s',
    },
  });
}

/**
 * CoreDNS on the node IP: Services and Pods of the node's API under `cluster.local`, every
 * other name forwarded to the host's resolver.
 */
export function corefile(paths: NodePaths, ports: NodePorts): string {
  return `.:53 {
    bind ${NODE_IP}
    errors
    health 127.0.0.1:${ports.dnsHealth}
    ready 127.0.0.1:${ports.dnsReady}
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
        kubeconfig ${paths.kubeconfig} svc-local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
    loop
    forward . /etc/resolv.conf
}
`;
}
