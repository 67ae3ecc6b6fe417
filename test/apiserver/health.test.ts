/** The control plane's probes and envelopes, against real MongoDB and kube-apiserver. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, startControlPlaneServer, type TestServer } from './control-plane-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startControlPlaneServer();
});

afterAll(async () => {
  await server.close();
});

describe('health probes', () => {
  it('answers GET /api/v1/health without authentication', async () => {
    const res = await call(server, 'GET', '/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers /liveness', async () => {
    expect((await call(server, 'GET', '/liveness')).status).toBe(200);
  });

  it('reports ready when MongoDB and Kubernetes answer', async () => {
    const res = await call(server, 'GET', '/readiness');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', dependencies: { mongodb: 'ok', kubernetes: 'ok' } });
  });
});

describe('readiness with a dependency down', () => {
  it('returns 503 naming the dependency that is down', async () => {
    const down = await startControlPlaneServer({ mongoDown: true });
    try {
      const res = await call(down, 'GET', '/readiness');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: 'unavailable',
        dependencies: { mongodb: 'unavailable', kubernetes: 'ok' },
      });
      expect((await call(down, 'GET', '/api/v1/health')).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});

describe('request ids and envelopes', () => {
  it('gives every response an x-request-id and echoes a sane incoming one', async () => {
    const fresh = await call(server, 'GET', '/api/v1/health');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await call(server, 'GET', '/api/v1/health', {
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const tooLong = 'x'.repeat(200);
    const replaced = await call(server, 'GET', '/api/v1/health', {
      headers: { 'x-request-id': tooLong },
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('returns 404 {detail:"Not Found"} for a path no route matches, with or without a key', async () => {
    for (const key of [null, 'svc_live_nonsense']) {
      const res = await call(server, 'GET', '/api/v1/nothing-here', { key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Not Found' });
    }
  });

  it('returns 405 {detail:"Method Not Allowed"} for a method the path does not take', async () => {
    const res = await call(server, 'PUT', '/api/v1/agents');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });
});
