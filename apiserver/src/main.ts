/**
 * Entry point of the API server: reads the configuration, connects to MongoDB
 * and Kubernetes, serves the control plane, purges expired rate-limit buckets
 * (there are no TTL indexes on FerretDB), and shuts down cleanly on SIGTERM or
 * SIGINT. Prints one JSON line `{"ready":"apiserver",...}` once listening.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { buildControlPlane } from './assemble.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const log = createLogger('apiserver', config.logLevel);

const kc = new KubeConfig();
if (config.kubeconfig) kc.loadFromFile(config.kubeconfig);
else kc.loadFromDefault();

// The driver reconnects by itself; readiness reports whether it is reachable.
const mongo = new MongoClient(config.mongoUri, { serverSelectionTimeoutMS: 5000 });
const db = mongo.db();

const { app, deps } = await buildControlPlane({ mongo, db, kc }, config, log);
const server = app.listen(config.controlPlanePort, config.host);
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
log.info('control plane listening', { url: `http://${config.host}:${port}` });
console.log(
  JSON.stringify({ ready: 'apiserver', controlPlaneUrl: `http://${config.host}:${port}` }),
);

const purge = setInterval(() => {
  deps.windows
    .purgeOlderThan(Date.now())
    .catch((err: unknown) => log.warn('rate-limit purge failed', { err }));
}, 60_000);
purge.unref();

async function shutdown(signal: string): Promise<void> {
  log.info('shutting down', { signal });
  clearInterval(purge);
  server.close();
  await mongo.close().catch(() => undefined);
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
