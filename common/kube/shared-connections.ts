/**
 * Kubernetes API requests over kept-alive connections. client-node 1.4 makes a new
 * https.Agent for every request (KubeConfig.createAgent, called per request by
 * applySecurityAuthentication and applyToHTTPSOptions): each request parses the CA and
 * client certificate into a new TLS context and opens a new TLS connection, a handshake
 * on both sides, which is most of what a client that writes a thousand statuses spends
 * its CPU on (and the API server's too). This gives a KubeConfig one keep-alive agent per
 * set of TLS settings, so requests share pooled connections.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** The TLS settings client-node passes to createAgent. */
type AgentOptions = https.AgentOptions & { servername?: string };

/** The cluster client-node passes to createAgent. */
interface ClusterLike {
  server?: string;
  proxyUrl?: string;
  skipTLSVerify?: boolean;
}

type CreateAgent = (cluster: ClusterLike | null, options: AgentOptions) => http.Agent;

/** A key of the settings that make a connection: the same key, the same pool. */
function settingsKey(cluster: ClusterLike | null, options: AgentOptions): string {
  const hash = createHash('sha256');
  hash.update(`${cluster?.server ?? ''}\0${cluster?.skipTLSVerify ?? ''}\0`);
  hash.update(`${options.rejectUnauthorized ?? ''}\0${options.servername ?? ''}\0`);
  for (const material of [options.ca, options.cert, options.key, options.pfx, options.passphrase])
    hash.update(`${material === undefined ? '' : String(material)}\0`);
  return hash.digest('hex');
}

/** Connections shared by every request of one KubeConfig; {@link close} ends them. */
export interface SharedConnections {
  /** How many agents (sets of TLS settings) were made so far. */
  readonly agents: number;
  /** Destroys the pooled connections (a process that stops, a test's teardown). */
  close(): void;
}

/**
 * Makes `kc` reuse one keep-alive agent per cluster and TLS settings (a rotated
 * certificate gets a new one), instead of a new agent per request. Proxied clusters
 * keep client-node's own agents.
 */
export function shareConnections(kc: KubeConfig): SharedConnections {
  const target = kc as unknown as { createAgent: CreateAgent };
  const original = target.createAgent.bind(kc);
  const pool = new Map<string, http.Agent>();
  target.createAgent = (cluster, options) => {
    if (cluster?.proxyUrl) return original(cluster, options);
    const key = settingsKey(cluster, options);
    let agent = pool.get(key);
    if (!agent) {
      const plain = cluster?.server?.startsWith('http:') && cluster.skipTLSVerify;
      // client-node's own checks (plain HTTP only with skipTLSVerify) stay its own.
      if (cluster?.server?.startsWith('http:') && !plain) return original(cluster, options);
      agent = plain
        ? new http.Agent({ ...options, keepAlive: true })
        : new https.Agent({ ...options, keepAlive: true });
      pool.set(key, agent);
    }
    return agent;
  };
  return {
    get agents() {
      return pool.size;
    },
    close() {
      for (const agent of pool.values()) agent.destroy();
      pool.clear();
    },
  };
}
