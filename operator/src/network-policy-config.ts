/**
 * What the NetworkPolicy of an account namespace allows, read from the
 * environment (Helm values in a cluster). Every value is checked here, so a
 * typo stops the operator's start instead of making the kube-apiserver reject
 * every policy it applies.
 */
import { isIP } from 'node:net';
import { envBool, envInt, envString } from '../../common/env.js';

/** The network rules of agent pods (see drivers/kubernetes/network-policy.ts). */
export interface NetworkPolicyConfig {
  /** Off only where the cluster's administrator manages tenant policies (SVC_NETWORK_POLICY). */
  enabled: boolean;
  /** Where the platform runs: API server, edge, engine, MongoDB (SVC_PLATFORM_NAMESPACE). */
  platformNamespace: string;
  /** Pods of the platform namespace that may open connections to agents: the edge. */
  edgeSelector: Record<string, string>;
  /** Pods of the platform namespace agents may call: the API front doors (SVC_API_URL, SVC_VECTORS_URL, the internal routes). */
  apiSelector: Record<string, string>;
  /** The front doors' container ports. */
  apiPorts: number[];
  /** Further addresses of the front doors (an internal load balancer, say), reachable on any port. */
  apiCidrs: string[];
  /** Pods of the platform namespace holding the image registry dockerfile builds push to; null when it is outside the cluster. */
  registrySelector: Record<string, string> | null;
  registryPort: number;
  /** Pod and service ranges of the cluster, kept out of the internet rule (beyond the private ranges). */
  clusterCidrs: string[];
}

/** Reads `key=value,key=value` (a label selector of equalities); empty is `{}`. */
export function parseSelector(name: string, text: string): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim())) {
    if (!part) continue;
    const match = /^([A-Za-z0-9./_-]+)=([A-Za-z0-9._-]*)$/.exec(part);
    if (!match?.[1])
      throw new Error(`${name} must be key=value pairs separated by commas, got "${text}"`);
    selector[match[1]] = match[2] ?? '';
  }
  return selector;
}

/** Checks a CIDR is written the way the kube-apiserver accepts it: the network address and a prefix. */
export function canonicalCidr(name: string, text: string): string {
  const [address = '', prefixText = '', ...rest] = text.trim().split('/');
  const family = isIP(address);
  const prefix = Number(prefixText);
  const bits = family === 4 ? 32 : 128;
  const embeddedV4 = family === 6 && address.includes('.');
  if (!family || embeddedV4 || rest.length > 0 || !/^\d+$/.test(prefixText) || prefix > bits) {
    throw new Error(`${name}: "${text}" is not a CIDR such as 10.96.0.0/12 or fd00::/8`);
  }
  if (!isNetworkAddress(address, family, prefix)) {
    throw new Error(`${name}: "${text}" has host bits set; write the network address`);
  }
  return `${address}/${prefix}`;
}

function isNetworkAddress(address: string, family: number, prefix: number): boolean {
  const bytes = family === 4 ? address.split('.').map(Number) : ipv6Bytes(address);
  for (let bit = prefix; bit < bytes.length * 8; bit++) {
    if (((bytes[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1) return false;
  }
  return true;
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  const all = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  return all.flatMap((g) => {
    const value = parseInt(g, 16);
    return [value >> 8, value & 0xff];
  });
}

function cidrList(name: string, env: NodeJS.ProcessEnv): string[] {
  return envString(name, '', env)
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => canonicalCidr(name, c));
}

function portList(name: string, fallback: string, env: NodeJS.ProcessEnv): number[] {
  return envString(name, fallback, env)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const port = Number(p);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new Error(`${name} must be ports separated by commas, got "${p}"`);
      return port;
    });
}

/** The API server's pods, as the Helm chart labels them. */
const API_SERVER_PODS = 'app.kubernetes.io/name=svc-apiserver';

/** Reads the NetworkPolicy settings from `env`. */
export function loadNetworkPolicyConfig(env = process.env): NetworkPolicyConfig {
  const registry = envString(
    'SVC_NETPOL_REGISTRY_SELECTOR',
    'app.kubernetes.io/name=svc-registry',
    env,
  );
  return {
    enabled: envBool('SVC_NETWORK_POLICY', true, env),
    platformNamespace: envString('SVC_PLATFORM_NAMESPACE', 'svc-system', env),
    // The edge is served by the API server process.
    edgeSelector: parseSelector(
      'SVC_NETPOL_EDGE_SELECTOR',
      envString('SVC_NETPOL_EDGE_SELECTOR', API_SERVER_PODS, env),
    ),
    apiSelector: parseSelector(
      'SVC_NETPOL_API_SELECTOR',
      envString('SVC_NETPOL_API_SELECTOR', API_SERVER_PODS, env),
    ),
    apiPorts: portList('SVC_NETPOL_API_PORTS', '8000,8001', env),
    apiCidrs: cidrList('SVC_NETPOL_API_CIDRS', env),
    registrySelector:
      registry.toLowerCase() === 'none'
        ? null
        : parseSelector('SVC_NETPOL_REGISTRY_SELECTOR', registry),
    registryPort: envInt('SVC_NETPOL_REGISTRY_PORT', 5000, { min: 1, max: 65535 }, env),
    clusterCidrs: cidrList('SVC_NETPOL_CLUSTER_CIDRS', env).map((cidr) => {
      // An except entry must be narrower than the range it is cut from.
      if (cidr.endsWith('/0'))
        throw new Error(`SVC_NETPOL_CLUSTER_CIDRS: ${cidr} covers everything`);
      return cidr;
    }),
  };
}
