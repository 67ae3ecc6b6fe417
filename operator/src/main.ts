/**
 * Entry point of the operator: reads its configuration, and reconciles only
 * while it holds the leader Lease, so two replicas never act at once. Stops
 * cleanly on SIGTERM or SIGINT, releasing the Lease.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { readConfigOrExit } from '../../common/env.js';
import { createLogger } from '../../common/logger.js';
import { loadOperatorConfig } from './config.js';
import { resolve } from 'node:path';
import type { WorkloadDriver } from './drivers/driver.js';
import { KubernetesDriver } from './drivers/kubernetes/kubernetes-driver.js';
import { LocalDriver } from './drivers/local/local-driver.js';
import { OperatorManager } from './manager.js';
import { LeaderElector } from '../../common/kube/index.js';
import { shareConnections } from '../../common/kube/shared-connections.js';
import { createMetricsRegistry } from '../../common/metrics/registry.js';
import { serveMetrics } from '../../common/metrics/metrics-server.js';
import { ReconcileMetrics } from './control-loop/reconcile-metrics.js';

const cfg = readConfigOrExit('operator', () => loadOperatorConfig());
// Read once; out of the environment, so no child process (an agent) inherits it or its file's name.
delete process.env.SVC_INTERNAL_SECRET;
delete process.env.SVC_INTERNAL_SECRET_FILE;
const log = createLogger('operator', cfg.logLevel);
const kc = new KubeConfig();
if (cfg.kubeconfig) kc.loadFromFile(cfg.kubeconfig);
else kc.loadFromDefault();
// One pool of kept-alive connections to the API, not a TLS handshake per request.
const connections = shareConnections(kc);

// The local driver's processes belong to this operator process: they live and die with it.
const localDriver =
  cfg.driver === 'local' ? await new LocalDriver(kc, cfg, resolve(cfg.localDir), log).init() : null;
const driver: WorkloadDriver = localDriver ?? new KubernetesDriver(kc, cfg);

// Prometheus, on a port of its own; the reconcile series read the manager while it leads.
const registry = createMetricsRegistry();
const reconcileMetrics = new ReconcileMetrics(registry);
const metrics =
  cfg.metrics.port >= 0 ? await serveMetrics(registry, cfg.metrics.host, cfg.metrics.port) : null;
if (metrics) log.info('metrics listening', { url: metrics.url });

let manager: OperatorManager | undefined;
const elector = new LeaderElector({
  kubeConfig: kc,
  namespace: cfg.leaseNamespace,
  name: cfg.leaseName,
  leaseDurationSeconds: cfg.leaseDurationSeconds,
  logger: log,
  onStartedLeading: () => {
    const only = new Set(cfg.namespaces);
    manager = new OperatorManager({
      kc,
      cfg,
      driver,
      log,
      metrics: reconcileMetrics,
      identity: elector.identity,
      namespaces: only.size > 0 ? (namespace) => only.has(namespace) : undefined,
    });
    manager.start().then(
      () => log.info('reconciling'),
      (err: unknown) => log.error('operator failed to start', { err }),
    );
  },
  onStoppedLeading: () => {
    const stopping = manager;
    manager = undefined;
    void stopping?.stop();
  },
});
elector.start();
console.log(
  JSON.stringify({
    ready: 'operator',
    identity: elector.identity,
    region: cfg.region,
    server: kc.getCurrentCluster()?.server,
    metricsUrl: metrics?.url,
  }),
);

async function shutdown(signal: string): Promise<void> {
  log.info('shutting down', { signal });
  await manager?.stop();
  await elector.stop();
  await localDriver?.close();
  await metrics?.close();
  connections.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
