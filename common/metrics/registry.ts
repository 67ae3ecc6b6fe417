/**
 * The Prometheus registry of one process (prom-client), with the default
 * process metrics (CPU, resident memory, event-loop lag, heap, open file
 * descriptors) under their conventional names. Each component adds its own
 * series to it and serves it with {@link serveMetrics}.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

export { Registry } from 'prom-client';

/** A registry holding the default process metrics. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
