/**
 * Entry point of the engine: reads the configuration (refusing to start without an API
 * key, `SVC_ENGINE_API_KEY`), recovers the data directory,
 * setting aside (and logging) any log record that will not replay, listens, prints
 * `{"ready":"engine","url":...}` on stdout once it accepts requests, and
 * on SIGTERM or SIGINT stops accepting, snapshots and exits.
 *
 *   node --import tsx engine/src/main.ts
 */
import type { AddressInfo } from 'node:net';
import { readConfigOrExit } from '../../common/env.js';
import { createLogger } from '../../common/logger.js';
import { readEngineConfig } from './config.js';
import { createEngineServer } from './http/server.js';
import { Engine } from './store/engine.js';
import { createMetricsRegistry } from '../../common/metrics/registry.js';
import { serveMetrics, type MetricsServer } from '../../common/metrics/metrics-server.js';
import { instrumentEngine } from './http/engine-metrics.js';

const config = readConfigOrExit('engine', () => readEngineConfig());
const logger = createLogger('engine', config.logLevel);

const engine = await Engine.open({
  dataDir: config.dataDir,
  snapshotBytes: config.snapshotBytes,
  index: {
    threshold: config.indexThreshold,
    idleMs: config.indexIdleMs,
    onError: (error) => logger.error('vector index build failed', { error }),
  },
  onQuarantine: (event) =>
    logger.error(
      'write-ahead log record would not replay: set aside in quarantine, startup goes on without it',
      { ...event },
    ),
});
const { quarantinedAtOpen, quarantined } = engine.recovery();
if (Object.keys(quarantined).length > 0) {
  logger.warn('collections hold quarantined write-ahead log records (GET /telemetry)', {
    quarantined_at_startup: quarantinedAtOpen,
    quarantined_by_collection: quarantined,
  });
}
const server = createEngineServer(engine, logger, {
  maxBodyBytes: config.maxBodyBytes,
  apiKey: config.apiKey,
});
const registry = createMetricsRegistry();
instrumentEngine(registry, engine, server);
const metrics: MetricsServer | null =
  config.metricsPort >= 0 ? await serveMetrics(registry, config.host, config.metricsPort) : null;
server.listen(config.port, config.host, () => {
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  logger.info('engine listening', {
    url,
    metrics_url: metrics?.url,
    data_dir: config.dataDir,
    collections: engine.names().length,
  });
  process.stdout.write(
    JSON.stringify({ ready: 'engine', url, ...(metrics ? { metricsUrl: metrics.url } : {}) }) +
      '\n',
  );
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('engine stopping', { signal });
  server.close();
  server.closeAllConnections();
  await metrics?.close();
  await engine.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
