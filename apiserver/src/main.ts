/**
 * Entry point of the API server: reads the configuration, connects to MongoDB
 * and Kubernetes, serves the control plane, purges expired rate-limit buckets
 * and logs older than the 7-day retention (there are no TTL indexes on
 * FerretDB), serves the agent edge on its own port, and shuts down cleanly on SIGTERM or SIGINT. Prints one JSON
 * line `{"ready":"apiserver",...}` once listening.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { MongoClient } from 'mongodb';
import { readConfigOrExit } from '../../common/env.js';
import { createLogger } from '../../common/logger.js';
import { buildControlPlane } from './assemble.js';
import { USAGE_SWEEP_INTERVAL_MS } from './usage/assemble.js';
import { loadConfig } from './config.js';
import { LOG_RETENTION_MS } from './logs/log-store.js';
import { createEdgeServer } from './edge/edge-server.js';
import { buildVectorPlane } from './vector/assemble.js';
import { RegionApis } from './regions/region-apis.js';
import { RegionalAgentIndex } from './regions/regional-agent-index.js';
import { Engines } from './vector/engines.js';
import { createMetricsRegistry } from '../../common/metrics/registry.js';
import { shareConnections } from '../../common/kube/shared-connections.js';
import { HttpMetrics } from '../../common/metrics/http-metrics.js';
import { serveMetrics } from '../../common/metrics/metrics-server.js';
import { DASHBOARD_PATH, withDashboard } from './dashboard/site.js';
import { originOf } from './dashboard/security-headers.js';
import { withCors } from './vector/cors.js';

const config = readConfigOrExit('apiserver', () => loadConfig());
const log = createLogger('apiserver', config.logLevel);

const kc = new KubeConfig();
if (config.kubeconfig) kc.loadFromFile(config.kubeconfig);
else kc.loadFromDefault();

// The driver reconnects by itself; readiness reports whether it is reachable.
const mongo = new MongoClient(config.mongoUri, { serverSelectionTimeoutMS: 5000 });
const db = mongo.db();

// A Kubernetes client per region of the registry (one when the regions share this API).
const apis = RegionApis.fromRegistry(config.registry, kc);
// Kept-alive connections to each API: client-node would make a TLS context and a TLS
// handshake per request (common/kube/shared-connections.ts).
const kubeConnections = [...new Set([kc, ...apis.apis.map((a) => a.kc)])].map(shareConnections);
log.info('regions', {
  regions: apis.apis.map((a) => ({ regions: a.regions, server: a.kc.getCurrentCluster()?.server })),
});

// Each region's vector engine: the vector plane serves collections from them, and region
// changes copy collections between them.
const engines = Engines.fromUrls(
  config.registry.home.name,
  config.engineUrl,
  Object.fromEntries(config.registry.regions.map((r) => [r.name, r.engineUrl])),
  { apiKey: config.engineApiKey, coalesce: config.coalesceSearches },
);

const { app, deps, caches } = await buildControlPlane(
  { mongo, db, kc, apis, engines },
  config,
  log,
);
// The web dashboard is served under /dashboard/ in front of the API; it calls the vector plane,
// whose URL is known once it listens.
let dashboardVectorsUrl: string | null = null;
const server = createServer(
  withDashboard(app.callback(), { vectorsUrl: () => dashboardVectorsUrl }),
).listen(config.controlPlanePort, config.host);
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
log.info('control plane listening', { url: `http://${config.host}:${port}` });
const dashboardOrigins = config.dashboardOrigins ?? [
  `http://${config.host}:${port}`,
  ...(config.host === '127.0.0.1' ? [`http://localhost:${port}`] : []),
  ...[originOf(config.codehost.publicApiUrl ?? null)].filter((o): o is string => o !== null),
];

// The vector data plane: its own port, in front of the engine.
const vectors = await buildVectorPlane(
  { db, kc, engines },
  {
    engineUrl: config.engineUrl,
    engineApiKey: config.engineApiKey,
    regions: config.regions,
    regionUrls: Object.fromEntries(config.registry.regions.map((r) => [r.name, r.publicUrl])),
    plansJson: config.plansJson,
    coalesceSearches: config.coalesceSearches,
  },
  log,
);
const vectorServer = createServer(withCors(vectors.handler, dashboardOrigins)).listen(
  config.vectorsPort,
  config.host,
);
await once(vectorServer, 'listening');
const vectorsPort = (vectorServer.address() as AddressInfo).port;
dashboardVectorsUrl =
  config.dashboardVectorsUrl ??
  config.registry.home.publicUrl ??
  `http://${config.host}:${vectorsPort}`;
log.info('vector plane listening', { url: `http://${config.host}:${vectorsPort}` });

// The agent edge: its own port, routing agent addresses by Host header.
// Every region's agents: one edge answers for all of them.
const agentIndex = new RegionalAgentIndex(apis, log.child({ front: 'edge' }));
await agentIndex.start();
const edge = createEdgeServer({
  domain: config.agentDomain,
  index: agentIndex,
  log: log.child({ front: 'edge' }),
  usage: deps.usage.writer,
});
edge.listen(config.edgePort, config.host);
await once(edge, 'listening');
const edgePort = (edge.address() as AddressInfo).port;
log.info('edge listening', {
  url: `http://${config.host}:${edgePort}`,
  domain: config.agentDomain,
});
// Prometheus: every front door's requests, and the process, on a port of its own.
const registry = createMetricsRegistry();
const httpMetrics = new HttpMetrics(registry);
httpMetrics.instrument(server, 'control_plane');
httpMetrics.instrument(vectorServer, 'vector_plane');
httpMetrics.instrument(edge, 'edge');
const metrics =
  config.metrics.port >= 0
    ? await serveMetrics(registry, config.metrics.host, config.metrics.port)
    : null;
if (metrics) log.info('metrics listening', { url: metrics.url });
console.log(
  JSON.stringify({
    ready: 'apiserver',
    controlPlaneUrl: `http://${config.host}:${port}`,
    edgeUrl: `http://${config.host}:${edgePort}`,
    vectorsUrl: `http://${config.host}:${vectorsPort}`,
    dashboardUrl: `http://${config.host}:${port}${DASHBOARD_PATH}`,
    metricsUrl: metrics?.url,
  }),
);

// Revokes the keys of deployments that no longer serve and of deleted agents.
await deps.keys.start();
// Moves accounts over a hard usage limit to usage_paused, and back once under it.
deps.usage.enforcer.start(USAGE_SWEEP_INTERVAL_MS);
// Carries out region changes, resuming those a stopped API server left unfinished.
deps.regionRunner.start();

const purge = setInterval(() => {
  deps.windows
    .purgeOlderThan(Date.now())
    .catch((err: unknown) => log.warn('rate-limit purge failed', { err }));
}, 60_000);
purge.unref();

const purgeLogs = () => {
  deps.logs
    .purgeOlderThan(new Date(Date.now() - LOG_RETENTION_MS))
    .catch((err: unknown) => log.warn('log purge failed', { err }));
};
purgeLogs();
const logPurge = setInterval(purgeLogs, 60 * 60_000);
logPurge.unref();

async function shutdown(signal: string): Promise<void> {
  log.info('shutting down', { signal });
  clearInterval(purge);
  clearInterval(logPurge);
  server.close();
  edge.close();
  vectorServer.close();
  await metrics?.close();
  await vectors.close();
  engines.close();
  await agentIndex.stop();
  await caches.stop();
  await deps.usage.enforcer.stop();
  // Usage events still buffered are written before the connection closes.
  await deps.usage.writer.close();
  await deps.regionRunner.stop();
  await deps.keys.stop();
  await mongo.close().catch(() => undefined);
  for (const connections of kubeConnections) connections.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
