/**
 * The NetworkPolicies of an account namespace, as pure functions of the
 * configuration. Agent pods (every pod carrying the agent-id label: service,
 * run, build, schedule trigger) may:
 * - receive connections only from the platform's edge, on the agent port;
 * - resolve names (port 53, any resolver: cluster DNS may be a node-local address);
 * - reach the internet: every address except the private, shared, loopback and
 *   link-local ranges (cloud metadata lives there) and the cluster's own ranges;
 * - reach the platform's API front doors (SVC_API_URL, SVC_VECTORS_URL, the
 *   internal routes builds and fetches use), and nothing else of the platform's
 *   namespace: never the engine, MongoDB or the kube-apiserver.
 * Build pods may also push to the in-cluster image registry. Policies are
 * additive, so the second one only widens what builds may reach.
 */
import type {
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1NetworkPolicyPeer,
} from '@kubernetes/client-node';
import { LABELS, MANAGED_BY } from '../../../../crds/src/index.js';
import type { NetworkPolicyConfig } from '../../network-policy-config.js';
import { AGENT_PORT } from '../agent-environment.js';

/** Name of the policy every agent pod is under. */
export const AGENT_POLICY_NAME = 'svc-agents';
/** Name of the policy that lets builds push images. */
export const BUILD_POLICY_NAME = 'svc-agent-builds';

/** IPv4 ranges that are never "the internet": RFC 1918, shared (RFC 6598), loopback, link-local, "this network". */
export const PRIVATE_IPV4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
];
/** IPv6 ranges that are never "the internet": unique local, link-local, loopback. */
export const PRIVATE_IPV6 = ['fc00::/7', 'fe80::/10', '::1/128'];

const isV6 = (cidr: string) => cidr.includes(':');

/** The agent pods of a namespace: everything the driver starts for an agent. */
const AGENT_PODS = { matchExpressions: [{ key: LABELS.agentId, operator: 'Exists' }] };

function platformPods(cfg: NetworkPolicyConfig, pods: Record<string, string>): V1NetworkPolicyPeer {
  return {
    namespaceSelector: {
      matchLabels: { 'kubernetes.io/metadata.name': cfg.platformNamespace },
    },
    podSelector: { matchLabels: pods },
  };
}

function metadata(name: string, namespace: string) {
  return { name, namespace, labels: { [LABELS.managedBy]: MANAGED_BY } };
}

/** The internet: both address families minus the private ranges and the cluster's own. */
export function internetPeers(clusterCidrs: readonly string[]): V1NetworkPolicyPeer[] {
  const except = (family: 4 | 6) => [
    ...new Set([
      ...(family === 4 ? PRIVATE_IPV4 : PRIVATE_IPV6),
      ...clusterCidrs.filter((c) => isV6(c) === (family === 6)),
    ]),
  ];
  return [
    { ipBlock: { cidr: '0.0.0.0/0', except: except(4) } },
    { ipBlock: { cidr: '::/0', except: except(6) } },
  ];
}

/** The policy every agent pod of `namespace` is under. */
export function agentNetworkPolicy(namespace: string, cfg: NetworkPolicyConfig): V1NetworkPolicy {
  const egress: V1NetworkPolicyEgressRule[] = [
    {
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    },
    { to: internetPeers(cfg.clusterCidrs) },
    {
      to: [platformPods(cfg, cfg.apiSelector)],
      ports: cfg.apiPorts.map((port) => ({ protocol: 'TCP', port })),
    },
  ];
  if (cfg.apiCidrs.length > 0)
    egress.push({ to: cfg.apiCidrs.map((cidr) => ({ ipBlock: { cidr } })) });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: metadata(AGENT_POLICY_NAME, namespace),
    spec: {
      podSelector: AGENT_PODS,
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          // client-node names the field `_from` and writes it as `from`.
          _from: [platformPods(cfg, cfg.edgeSelector)],
          ports: [{ protocol: 'TCP', port: AGENT_PORT }],
        },
      ],
      egress,
    },
  };
}

/** The policy that lets build pods push to an in-cluster registry; null when the registry is outside. */
export function buildNetworkPolicy(
  namespace: string,
  cfg: NetworkPolicyConfig,
): V1NetworkPolicy | null {
  if (!cfg.registrySelector) return null;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: metadata(BUILD_POLICY_NAME, namespace),
    spec: {
      podSelector: {
        matchLabels: { [LABELS.component]: 'build' },
        matchExpressions: AGENT_PODS.matchExpressions,
      },
      policyTypes: ['Egress'],
      egress: [
        {
          to: [platformPods(cfg, cfg.registrySelector)],
          ports: [{ protocol: 'TCP', port: cfg.registryPort }],
        },
      ],
    },
  };
}
