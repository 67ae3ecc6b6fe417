/**
 * The listener a Prometheus server scrapes: `GET /metrics` answers the
 * registry in the text exposition format, `GET /healthz` answers 200 while the
 * process's event loop does (the chart's liveness probe of a component with no
 * other listener, the operator); anything else is 404. It is a port
 * of its own, not a path of a public front door, so it can be kept off the
 * internet and out of agents' reach (the single-machine sandbox closes every
 * host loopback port but the front doors; the chart's NetworkPolicy admits
 * only the namespace's scraper).
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A running metrics listener. */
export interface MetricsServer {
  server: Server;
  /** `http://host:port/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `registry` at `http://host:port/metrics` (port 0: a free one). */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(req.method === 'HEAD' ? '' : 'ok\n');
      return;
    }
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  const bound = server.address() as AddressInfo;
  const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    server,
    url: `http://${shown}:${bound.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
