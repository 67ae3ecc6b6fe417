import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMetricsRegistry } from './registry.js';
import { serveMetrics, type MetricsServer } from './metrics-server.js';

let server: MetricsServer;
let base: string;

beforeAll(async () => {
  server = await serveMetrics(createMetricsRegistry(), '127.0.0.1', 0);
  base = server.url.replace(/\/metrics$/, '');
});

afterAll(async () => {
  await server.close();
});

describe('the metrics listener', () => {
  it('answers the registry at /metrics and 200 at /healthz (the liveness probe)', async () => {
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# HELP');
    const health = await fetch(`${base}/healthz`);
    expect([health.status, await health.text()]).toEqual([200, 'ok\n']);
  });

  it('answers 404 elsewhere and to writes', async () => {
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(404);
  });
});
