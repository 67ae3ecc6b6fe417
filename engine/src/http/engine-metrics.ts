/**
 * The engine's Prometheus series: its requests (route pattern, method, code;
 * see common/metrics/http-metrics.ts), search latency, and at scrape time the
 * collections it holds, their points, indexed vectors and segments, summed
 * over collections (a collection's name never becomes a label).
 */
import type { Server } from 'node:http';
import { Gauge, Histogram, type Registry } from 'prom-client';
import { HttpMetrics } from '../../../common/metrics/http-metrics.js';
import type { Engine } from '../store/engine.js';

/** Routes whose latency is the engine's search latency. */
const SEARCH_ROUTE = /\/points\/(search|query|recommend|discover)(\/batch|\/groups)?$/;

/** Registers the engine's series on `registry` and measures `server`'s requests. */
export function instrumentEngine(registry: Registry, engine: Engine, server: Server): void {
  const searches = new Histogram({
    name: 'svc_engine_search_duration_seconds',
    help: 'Time the engine took to answer a search, query, recommend or discover request that succeeded.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new HttpMetrics(registry).instrument(server, 'engine', (route, status, seconds) => {
    if (status === 200 && SEARCH_ROUTE.test(route)) searches.observe(seconds);
  });
  new Gauge({
    name: 'svc_engine_collections',
    help: 'Collections the engine holds.',
    registers: [registry],
    collect() {
      this.set(engine.names().length);
    },
  });
  const sum = (read: (name: string) => number) =>
    engine.names().reduce((total, name) => total + (engine.has(name) ? read(name) : 0), 0);
  new Gauge({
    name: 'svc_engine_points',
    help: 'Live points over all collections.',
    registers: [registry],
    collect() {
      this.set(sum((name) => engine.get(name).points.liveCount));
    },
  });
  new Gauge({
    name: 'svc_engine_indexed_vectors',
    help: 'Vectors in a built approximate index, over all collections.',
    registers: [registry],
    collect() {
      this.set(sum((name) => engine.get(name).vectorIndex.indexedCount));
    },
  });
  new Gauge({
    name: 'svc_engine_segments',
    help: 'Segments over all collections (one per collection in this engine).',
    registers: [registry],
    collect() {
      this.set(engine.names().length);
    },
  });
}
