/**
 * Where the real node's pieces live and the addresses they use. One node per machine: its
 * bridge, pod network and DNS address are fixed (a second `hack/node.sh up` stops the first);
 * everything it writes is under one directory, which its stop removes.
 */
import { join } from 'node:path';
import { toolsBin } from '../lib/paths.js';

/** The node's name as a Kubernetes Node. */
export const NODE_NAME = 'svc-node';
/** The Linux bridge the pods are plugged into (made by the node, removed by its stop). */
export const BRIDGE = 'svcnode0';
/** The pods' addresses: one /24 on the bridge. */
export const POD_CIDR = '10.244.0.0/24';
/**
 * The bridge's own address: the pods' gateway, the node's InternalIP (where the API server
 * reaches the kubelet), the kube-apiserver's advertised address (the endpoint of the
 * `kubernetes` Service) and the cluster DNS server.
 */
export const NODE_IP = '10.244.0.1';
/** The Services' cluster IPs (kube-apiserver's --service-cluster-ip-range). */
export const SERVICE_CIDR = '10.96.0.0/16';
/** The DNS domain of Services (`<svc>.<ns>.svc.cluster.local`). */
export const CLUSTER_DOMAIN = 'cluster.local';

/** The nftables table kube-network-policies keeps its rules in (removed by the node's stop). */
export const NETWORK_POLICY_TABLE = 'kube-network-policies';

/** Runtime state that must live under /run (short socket paths): removed by the node's stop. */
export const RUN_DIR = `/run/${NODE_NAME}`;

/** The node's directories and files under its state directory. */
export interface NodePaths {
  dir: string;
  kubeconfig: string;
  logs: string;
  containerdConfig: string;
  containerdRoot: string;
  containerdState: string;
  containerdSocket: string;
  /** runc's state of the node's containers (each namespace in a folder of its own). */
  runcRoot: string;
  /** Where containerd finds the CNI plugins. */
  cniBin: string;
  cniConf: string;
  cniIpam: string;
  kubeletRoot: string;
  kubeletConfig: string;
  kubeProxyConfig: string;
  corefile: string;
  /** Image archives waiting to be imported into the node's containerd. */
  images: string;
}

/** The layout of a node whose state is in `dir`. */
export function nodePaths(dir: string): NodePaths {
  return {
    dir,
    kubeconfig: join(dir, 'kubeconfig'),
    logs: join(dir, 'logs'),
    containerdConfig: join(dir, 'containerd', 'config.toml'),
    containerdRoot: join(dir, 'containerd', 'root'),
    containerdState: join(dir, 'containerd', 'state'),
    // A unix socket's path must stay short (108 bytes): under /run, named by the node.
    containerdSocket: `${RUN_DIR}/containerd.sock`,
    runcRoot: `${RUN_DIR}/runc`,
    // The CNI plugins are where hack/build-tools.sh --node puts them.
    cniBin: toolsBin,
    cniConf: join(dir, 'cni', 'conf'),
    cniIpam: join(dir, 'cni', 'ipam'),
    kubeletRoot: join(dir, 'kubelet'),
    kubeletConfig: join(dir, 'kubelet-config.yaml'),
    kubeProxyConfig: join(dir, 'kube-proxy-config.yaml'),
    corefile: join(dir, 'Corefile'),
    images: join(dir, 'images'),
  };
}
