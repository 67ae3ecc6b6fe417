/**
 * Where an agent's service is reached, as the operator writes it into the
 * Agent's `status.endpoint`: `host:port` for a cluster Service (the
 * Kubernetes driver), `unix:/abs/path` for a Unix socket (the local driver,
 * whose sandboxed services forward no host TCP port; README "Isolation").
 * Both the edge and the driver itself connect through {@link endpointTarget}.
 */

/** The prefix of a Unix socket endpoint. */
const UNIX = 'unix:';

/** What node:http and node:net need to connect to an endpoint. */
export type EndpointTarget = { socketPath: string } | { host: string; port: number };

/** The endpoint of a Unix socket at absolute path `path`. */
export function unixEndpoint(path: string): string {
  return `${UNIX}${path}`;
}

/** Where to connect for `endpoint` (`unix:/path`, or `host:port` with port 80 by default). */
export function endpointTarget(endpoint: string): EndpointTarget {
  if (endpoint.startsWith(UNIX)) return { socketPath: endpoint.slice(UNIX.length) };
  const colon = endpoint.lastIndexOf(':');
  const host = colon < 0 ? endpoint : endpoint.slice(0, colon);
  const port = colon < 0 ? 80 : Number(endpoint.slice(colon + 1));
  return { host: host || '127.0.0.1', port: Number.isInteger(port) && port > 0 ? port : 80 };
}
