/**
 * A loopback TCP proxy in front of the kube-apiserver that tests can break, to produce
 * the network failures an operator meets (a partition that hangs requests, a connection
 * reset, a refused connection) against the real server. TLS passes through untouched.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** How the proxy treats traffic. */
export type ProxyMode = 'forward' | 'hang' | 'refuse';

/** A running proxy. */
export interface TcpProxy {
  /** Forward (default), black-hole (requests hang), or reset every connection. */
  setMode(mode: ProxyMode): void;
  /** Resets every open connection (both sides). */
  dropConnections(): void;
  /** The given KubeConfig with its current cluster's server pointed at the proxy. */
  kubeConfig(): KubeConfig;
  close(): Promise<void>;
}

/** Starts a proxy to the current cluster of `kc` on a free loopback port. */
export async function startTcpProxy(kc: KubeConfig): Promise<TcpProxy> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster');
  const target = new URL(cluster.server);
  let mode: ProxyMode = 'forward';
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const pairs = new Set<[Socket, Socket]>();

  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    // In 'hang' mode the connection is accepted and never answered.
    if (mode === 'hang') return;
    const upstream = connect(Number(target.port), target.hostname);
    track(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('proxy has no port');

  return {
    setMode(next) {
      mode = next;
      if (next === 'hang') {
        // Stop the traffic of open connections without closing them, as a partition does.
        for (const [client, upstream] of pairs) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.removeAllListeners('close');
          upstream.destroy();
        }
        pairs.clear();
      }
    },
    dropConnections() {
      for (const socket of sockets) socket.resetAndDestroy();
    },
    kubeConfig() {
      const proxied = new KubeConfig();
      proxied.loadFromOptions({
        clusters: kc.clusters.map((c) =>
          c.name === cluster.name ? { ...c, server: `https://127.0.0.1:${address.port}` } : c,
        ),
        users: kc.users,
        contexts: kc.contexts,
        currentContext: kc.currentContext,
      });
      return proxied;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
