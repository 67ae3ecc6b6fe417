/** The control-plane front door's probes and envelopes, against real MongoDB and kube-apiserver. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { createControlPlaneApp } from '../../apiserver/src/control-plane/app.js';
import { kubernetesProbe, mongoProbe } from '../../apiserver/src/probes.js';
import { harness, kubeConfig } from '../harness/env.js';

let server: Server;
let base: string;
let mongo: MongoClient;
let unreachableMongo: MongoClient;

async function listen(app: ReturnType<typeof createControlPlaneApp>): Promise<[Server, string]> {
  const s = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => s.once('listening', resolve));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}`];
}

beforeAll(async () => {
  mongo = new MongoClient(harness().mongoUri, { serverSelectionTimeoutMS: 2000 });
  const log = createLogger('apiserver', 'silent');
  [server, base] = await listen(
    createControlPlaneApp({ log, probes: [mongoProbe(mongo), kubernetesProbe(kubeConfig())] }),
  );
  unreachableMongo = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 300 });
});

afterAll(async () => {
  server.close();
  await mongo.close();
  await unreachableMongo.close();
});

describe('health probes', () => {
  it('answers GET /api/v1/health without authentication', async () => {
    const res = await fetch(`${base}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers /liveness', async () => {
    expect((await fetch(`${base}/liveness`)).status).toBe(200);
  });

  it('reports ready when MongoDB and Kubernetes answer', async () => {
    const res = await fetch(`${base}/readiness`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      dependencies: { mongodb: 'ok', kubernetes: 'ok' },
    });
  });

  it('returns 503 naming the dependency that is down', async () => {
    const log = createLogger('apiserver', 'silent');
    const [down, downBase] = await listen(
      createControlPlaneApp({
        log,
        probes: [mongoProbe(unreachableMongo), kubernetesProbe(kubeConfig())],
      }),
    );
    try {
      const res = await fetch(`${downBase}/readiness`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        status: 'unavailable',
        dependencies: { mongodb: 'unavailable', kubernetes: 'ok' },
      });
    } finally {
      down.close();
    }
  });
});

describe('request ids and envelopes', () => {
  it('gives every response an x-request-id and echoes a sane incoming one', async () => {
    const fresh = await fetch(`${base}/api/v1/health`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await fetch(`${base}/api/v1/health`, { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const tooLong = 'x'.repeat(200);
    const replaced = await fetch(`${base}/api/v1/health`, { headers: { 'x-request-id': tooLong } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('returns 404 {detail:"Not Found"} for a path no route matches', async () => {
    const res = await fetch(`${base}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not Found' });
  });
});
