/**
 * The network of a sandbox: its own network namespace, connected to the
 * outside by `pasta` (user-mode networking from Debian's passt package).
 * Outbound connections to other machines work as from the host; the host's
 * own loopback services (kube-apiserver, etcd, MongoDB, the engine, other
 * agents) are unreachable, because the gateway is not mapped to the host and
 * no host port is forwarded into the namespace except the platform's public
 * front doors (the control plane, the vector plane and the edge), which an
 * agent is meant to call at the same `127.0.0.1` addresses as on the host.
 * Nothing is forwarded the other way (`--tcp-ports none`): no host port leads
 * into a sandbox. A service listens on a Unix socket in a directory of its
 * own that the sandbox bind-mounts (./sandbox.ts, SOCKET_DIR), and the edge
 * connects to that socket file; a host port forwarded by pasta would let any
 * process on the machine call the agent without going through the edge.
 */

/** How one sandbox is wired. */
export interface NetworkPlan {
  /** Host loopback ports an agent may reach at the same port inside (the public front doors). */
  publicPorts: number[];
  /** The user pasta runs as once set up (the agent's own uid; null keeps the caller's). */
  runAs: number | null;
}

/** The address inside every sandbox, the gateway, and the DNS address pasta answers on. */
export const SANDBOX_ADDRESS = '10.0.2.100';
export const SANDBOX_GATEWAY = '10.0.2.2';
export const SANDBOX_DNS = '10.0.2.3';

/** pasta's arguments to wire the namespaces of process `pid`. */
export function pastaArgs(plan: NetworkPlan, pid: number): string[] {
  return [
    '--config-net',
    '--quiet',
    '--address',
    SANDBOX_ADDRESS,
    '--netmask',
    '24',
    '--gateway',
    SANDBOX_GATEWAY,
    '--dns-forward',
    SANDBOX_DNS,
    // The gateway is not the host: without this, 10.0.2.2 reaches every host loopback port.
    '--no-map-gw',
    // Nothing from the host into the namespace: a service is reached through its Unix socket.
    '--tcp-ports',
    'none',
    '--udp-ports',
    'none',
    // pasta's default here is `auto`, every port bound on the host: name the allowed ones.
    '--tcp-ns',
    plan.publicPorts.length > 0 ? [...new Set(plan.publicPorts)].join(',') : 'none',
    '--udp-ns',
    'none',
    ...(plan.runAs !== null ? ['--runas', String(plan.runAs)] : []),
    String(pid),
  ];
}

/** The host loopback port of `url`, when it is one an agent should reach; null otherwise. */
export function loopbackPort(url: string | undefined): number | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)) return null;
    return Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  } catch {
    return null;
  }
}
