/**
 * The vector front door: its envelope, authentication with the control
 * plane's keys, the unsupported-endpoint answers, and the per-plan fixed
 * 60-second rate limit that is separate from the control plane's.
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { createLogger } from '../../common/logger.js';
import { generateSecret } from '../../common/secrets.js';
import { MongoWindowStore } from '../../apiserver/src/rate-limit/mongo-window-store.js';
import { collections } from '../../apiserver/src/store/database.js';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import {
  buildVectorPlane,
  vectorPlaneApp,
  type VectorPlane,
} from '../../apiserver/src/vector/assemble.js';
import { harness, kubeConfig, uniqueSuffix } from '../harness/env.js';
import {
  createVectorCaller,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let clock = 0;
// Rate-limit tests move this clock; a bucket starts at every multiple of 60 s.
const BUCKET = 60_000 * 1_000_000;

beforeAll(async () => {
  clock = BUCKET + 1_000;
  server = await startVectorServer({
    now: () => clock,
    plansJson: JSON.stringify({ free: { vectorRequestsPerMinute: 3, requestsPerMinute: 3 } }),
  });
});
afterAll(async () => {
  await server?.close();
});

/** Serves `plane` on a free loopback port: its base URL, and how to stop both. */
async function serve(plane: VectorPlane): Promise<{ base: string; close(): Promise<void> }> {
  const listening: Server = createServer(plane.handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => listening.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    close: async () => {
      listening.closeAllConnections();
      await new Promise((resolve) => listening.close(resolve));
      await plane.close();
    },
  };
}

/**
 * A TCP relay to the server of `uri` on a free loopback port: `uri` is the
 * same connection string through it, and `cut` stops it and drops every
 * connection, as a network failure would.
 */
async function cuttableRelay(target: string): Promise<{ uri: string; cut(): void }> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const relay = createTcpServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => [client, upstream].forEach((s) => s.destroy()));
    }
    client.pipe(upstream).pipe(client);
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => relay.once('listening', resolve));
  const through = new URL(target);
  through.port = String((relay.address() as AddressInfo).port);
  return {
    uri: through.toString(),
    cut: () => {
      relay.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

describe('authentication', () => {
  test('returns 401 MISSING_API_KEY without an Authorization header', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections');
    expect(res.status).toBe(401);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'MISSING_API_KEY', message: expect.any(String) }),
    );
    expect(res.body.error.retriable).toBeUndefined();
  });

  test('returns 401 MISSING_API_KEY for a header that is not Bearer', async () => {
    const { key } = await createVectorCaller(server);
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      headers: { authorization: `Basic ${key}` },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  test('returns 401 INVALID_API_KEY for a key that does not resolve', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      key: 'svc_live_notarealkeyatall',
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  test('returns 403 ACCOUNT_SUSPENDED for a suspended account', async () => {
    const { key } = await createVectorCaller(server, { suspended: true });
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', { key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ACCOUNT_SUSPENDED');
  });

  test('returns 500 AUTHENTICATION_ERROR, retriable, when the key store is unreachable', async () => {
    const mongo = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 300 });
    const plane = vectorPlaneApp(
      { db: mongo.db('unreachable'), kc: kubeConfig() },
      { engineUrl: server.engineUrl, engineApiKey: server.engineApiKey, regions: ['local'] },
      createLogger('apiserver', 'silent'),
    );
    const down = await serve(plane);
    try {
      const res = await vcall<ErrorBody>(down, 'GET', '/api/v1/collections', {
        key: `svc_live_${'A'.repeat(43)}`,
      });
      expect(res.status).toBe(500);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'AUTHENTICATION_ERROR', retriable: true }),
      );
    } finally {
      await down.close();
      await mongo.close();
    }
  });

  test('returns 503 SERVICE_UNAVAILABLE, retriable, when the metadata store goes away after authentication', async () => {
    // MongoDB through a relay the test can cut: the key is resolved (and cached) before.
    const relay = await cuttableRelay(harness().mongoUri);
    const mongo = new MongoClient(relay.uri, { serverSelectionTimeoutMS: 500 });
    const name = `relayed_${uniqueSuffix()}`;
    const up = await serve(
      await buildVectorPlane(
        { db: mongo.db(name), kc: kubeConfig() },
        { engineUrl: server.engineUrl, engineApiKey: server.engineApiKey, regions: ['local'] },
        createLogger('apiserver', 'silent'),
      ),
    );
    try {
      const accounts = new AccountService(collections(mongo.db(name)), 'local');
      const { key } = await createVectorCaller({ accounts }, { tier: 'enterprise' });
      const before = await vcall(up, 'GET', '/api/v1/collections', { key });
      expect(before.status).toBe(200);
      relay.cut();
      const res = await vcall<ErrorBody>(up, 'GET', '/api/v1/collections', { key });
      expect(res.status).toBe(503);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: 'SERVICE_UNAVAILABLE', retriable: true }),
      );
      expect(res.body.error.message).not.toMatch(/mongo|127\.0\.0\.1/i);
    } finally {
      await up.close();
      await mongo.close();
      const direct = new MongoClient(harness().mongoUri);
      await direct.db(name).dropDatabase();
      await direct.close();
    }
  });

  test('accepts the key in an api-key header, as the official clients send it', async () => {
    const { key } = await createVectorCaller(server);
    const res = await vcall(server, 'GET', '/api/v1/collections', { headers: { 'api-key': key } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { collections: [] }, status: 'ok' });
  });

  test('checks an api-key header as it checks a bearer key: unknown, suspended, and read first', async () => {
    const bad = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      headers: { 'api-key': 'svc_live_notarealkeyatall' },
    });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('INVALID_API_KEY');
    const suspended = await createVectorCaller(server, { suspended: true });
    const refused = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      headers: { 'api-key': suspended.key },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ACCOUNT_SUSPENDED');
    // Both sent: api-key is the one read, as Qdrant reads it.
    const { key } = await createVectorCaller(server);
    const both = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      key,
      headers: { 'api-key': 'svc_live_notarealkeyatall' },
    });
    expect(both.status).toBe(401);
    expect(both.body.error.code).toBe('INVALID_API_KEY');
  });

  test('returns 401 MISSING_API_KEY naming both ways to send the key for a blank api-key header', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', {
      headers: { 'api-key': ' ' },
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
    expect(res.body.error.message).toMatch(/api-key/);
  });

  test('accepts a user key of the control plane', async () => {
    const { key } = await createVectorCaller(server);
    const res = await vcall(server, 'GET', '/api/v1/collections', { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { collections: [] }, status: 'ok' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  test("returns 502 PROXY_ERROR, not the engine's 401, when the gateway holds a wrong engine key", async () => {
    const misconfigured = await startVectorServer({
      db: server.db,
      engineUrl: server.engineUrl,
      engineApiKey: generateSecret(),
    });
    try {
      const { key } = await createVectorCaller(misconfigured);
      const res = await vcall<ErrorBody>(misconfigured, 'POST', '/api/v1/collections', {
        key,
        body: { name: 'refused', vectors: { size: 4, distance: 'cosine' } },
      });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('PROXY_ERROR');
    } finally {
      await misconfigured.close();
    }
  });
});

describe('envelope of unmatched requests', () => {
  test('returns 404 NOT_FOUND in the error envelope for an unknown path', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test.each([
    '/api/v1/telemetry',
    '/metrics',
    '/api/v1/cluster',
    '/api/v1/locks',
    '/api/v1/snapshots',
    '/api/v1/collections/docs/snapshots',
    '/api/v1/collections/docs/shards',
  ])('returns 404 NOT_FOUND "Unsupported endpoint" for %s', async (path) => {
    const res = await vcall<ErrorBody>(server, 'GET', path);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'Unsupported endpoint' }),
    );
  });

  test('returns 405 METHOD_NOT_ALLOWED for the engine-native PUT /collections/{name}', async () => {
    const { key } = await createVectorCaller(server);
    const res = await vcall<ErrorBody>(server, 'PUT', '/api/v1/collections/docs', {
      key,
      body: { vectors: { size: 4, distance: 'Cosine' } },
    });
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.body.error.message).toMatch(/POST \/api\/v1\/collections/);
  });

  test('returns 405 METHOD_NOT_ALLOWED for a method the path does not take', async () => {
    const res = await vcall<ErrorBody>(server, 'DELETE', '/api/v1/regions');
    expect(res.status).toBe(405);
    expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('HEAD, GET');
  });

  test.each([
    ['TRACE', '/api/v1/collections/docs', 'HEAD, GET, PATCH, DELETE'],
    // GET /points/{id} matches this path too (and answers 400 INVALID_POINT_ID for it).
    ['TRACE', '/api/v1/collections/docs/points/search', 'POST, HEAD, GET'],
    ['TRACE', '/api/v1/workspaces/team/collections/docs/points', 'PUT, POST'],
    ['TRACE', '/api/v1/schema/docs', 'HEAD, GET, PUT, DELETE'],
    ['TRACE', '/api/v1/openapi.json', 'HEAD, GET'],
    ['PATCH', '/api/v1/collections/docs/points/scroll', 'POST, HEAD, GET'],
    ['PROPFIND', '/api/v1/regions', 'HEAD, GET'],
  ])(
    'returns 405 METHOD_NOT_ALLOWED in the envelope with Allow for %s %s',
    async (method, path, allow) => {
      const res = await plainRequest(server.base, method, path);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(JSON.parse(res.text)).toEqual({
        error: expect.objectContaining({ code: 'METHOD_NOT_ALLOWED' }),
      });
    },
  );

  test('answers OPTIONS with 204 and Allow', async () => {
    const res = await plainRequest(server.base, 'OPTIONS', '/api/v1/collections');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('POST, HEAD, GET');
  });

  test('returns 404 NOT_FOUND for TRACE on a path that does not exist', async () => {
    const res = await plainRequest(server.base, 'TRACE', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).error.code).toBe('NOT_FOUND');
  });

  test.each([
    '/points/recommend',
    '/points/recommend/batch',
    '/points/recommend/groups',
    '/points/discover',
    '/points/discover/batch',
    '/points/batch',
    '/points/search/matrix/pairs',
    '/points/search/matrix/offsets',
    '/facet',
  ])(
    'returns 404 NOT_FOUND "Unsupported endpoint" for POST .../collections/{name}%s',
    async (rest) => {
      const { key } = await createVectorCaller(server);
      for (const path of [
        `/api/v1/collections/docs${rest}`,
        `/api/v1/workspaces/team/collections/docs${rest}`,
      ]) {
        const res = await vcall<ErrorBody>(server, 'POST', path, { key, body: {} });
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual(
          expect.objectContaining({ code: 'NOT_FOUND', message: 'Unsupported endpoint' }),
        );
      }
    },
  );
});

/**
 * A request fetch will not send (TRACE, PROPFIND) or whose headers fetch
 * hides: status, headers and text.
 */
function plainRequest(
  base: string,
  method: string,
  path: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /api/v1/openapi.json', () => {
  test('serves the OpenAPI 3.1 document without a key', async () => {
    const res = await vcall<{ openapi: string; paths: Record<string, unknown> }>(
      server,
      'GET',
      '/api/v1/openapi.json',
    );
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v1/collections/{name}/points/search']).toBeDefined();
  });
});

describe('rate limit', () => {
  test('returns 429 RATE_LIMIT_EXCEEDED, retriable and without Retry-After, past the plan budget', async () => {
    const { key } = await createVectorCaller(server, { tier: 'free' });
    clock = BUCKET + 60_000 + 58_000;
    for (let i = 0; i < 3; i++) {
      expect((await vcall(server, 'GET', '/api/v1/collections', { key })).status).toBe(200);
    }
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections', { key });
    expect(res.status).toBe(429);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'RATE_LIMIT_EXCEEDED', retriable: true }),
    );
    expect(res.headers.get('retry-after')).toBeNull();
  });

  test('starts a fresh budget at the next 60-second bucket, whatever the previous one spent', async () => {
    const { key } = await createVectorCaller(server, { tier: 'free' });
    clock = BUCKET + 120_000 + 59_000;
    for (let i = 0; i < 3; i++) await vcall(server, 'GET', '/api/v1/collections', { key });
    expect((await vcall(server, 'GET', '/api/v1/collections', { key })).status).toBe(429);
    // A sliding window would still weigh the previous bucket here; a fixed bucket does not.
    clock = BUCKET + 180_000 + 1;
    for (let i = 0; i < 3; i++) {
      expect((await vcall(server, 'GET', '/api/v1/collections', { key })).status).toBe(200);
    }
  });

  test("does not count the control plane's requests against the vector budget", async () => {
    const caller = await createVectorCaller(server, { tier: 'free' });
    clock = BUCKET + 240_000 + 1_000;
    // The control plane's limiter counts under its own key in the same store.
    const controlPlane = new MongoWindowStore(collections(server.db).rateBuckets);
    for (let i = 0; i < 10; i++) await controlPlane.hit(`cp:${caller.accountId}`, clock);
    for (let i = 0; i < 3; i++) {
      expect((await vcall(server, 'GET', '/api/v1/collections', { key: caller.key })).status).toBe(
        200,
      );
    }
  });
});
