/**
 * Entry point of the API server: reads the configuration, connects to MongoDB
 * and Kubernetes, serves the front doors, and shuts down cleanly on SIGTERM or
 * SIGINT. Prints one JSON line `{"ready":"apiserver",...}` once listening.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { loadConfig } from './config.js';
import { createControlPlaneApp } from './control-plane/app.js';
import { kubernetesProbe, mongoProbe } from './probes.js';

const config = loadConfig();
const log = createLogger('apiserver', config.logLevel);

const kc = new KubeConfig();
if (config.kubeconfig) kc.loadFromFile(config.kubeconfig);
else kc.loadFromDefault();

// The driver connects lazily and reconnects by itself; readiness reports it.
const mongo = new MongoClient(config.mongoUri, { serverSelectionTimeoutMS: 5000 });

const app = createControlPlaneApp({ log, probes: [mongoProbe(mongo), kubernetesProbe(kc)] });
const server = app.listen(config.controlPlanePort, config.host);
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
log.info('control plane listening', { url: `http://${config.host}:${port}` });
console.log(
  JSON.stringify({ ready: 'apiserver', controlPlaneUrl: `http://${config.host}:${port}` }),
);

async function shutdown(signal: string): Promise<void> {
  log.info('shutting down', { signal });
  server.close();
  await mongo.close().catch(() => undefined);
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
