/** The control plane's probes and envelopes, against real MongoDB and kube-apiserver. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request, type IncomingHttpHeaders } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from './control-plane-server.js';

let server: TestServer;

/** A request by node:http, which sends any method (fetch refuses TRACE). */
function send(
  method: string,
  path: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.base}${path}`, { method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

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

  it('returns 405 METHOD_NOT_ALLOWED with an Allow header for a method the path does not take', async () => {
    for (const method of ['PUT', 'TRACE']) {
      const res = await send(method, '/api/v1/agents');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD, POST');
      expect(JSON.parse(res.text)).toEqual({
        detail: {
          code: 'METHOD_NOT_ALLOWED',
          message: `${method} is not allowed on /api/v1/agents; it takes GET, HEAD, POST.`,
        },
      });
    }
    const probe = await send('TRACE', '/api/v1/health');
    expect(probe.status).toBe(405);
    expect(probe.headers.allow).toBe('GET, HEAD');
  });

  it('answers OPTIONS with 204 and the Allow header, and TRACE on an unknown path with 404', async () => {
    const options = await send('OPTIONS', '/api/v1/agents/some-agent');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
    const unknown = await send('TRACE', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({ detail: 'Not Found' });
  });
});

describe('JSON bodies', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createCaller(server)).key;
  });

  it('returns 415 UNSUPPORTED_MEDIA_TYPE for a body that is not sent as JSON', async () => {
    const body = JSON.stringify({ name: 'plain-text' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const res = await call(server, 'POST', '/api/v1/agents', {
        key,
        rawBody: Buffer.from(body),
        headers: type ? { 'content-type': type } : {},
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        detail: {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: `Send the body as JSON with Content-Type: application/json, not "${type ?? 'none'}".`,
        },
      });
    }
    const agent = await call(server, 'GET', '/api/v1/agents/plain-text', { key });
    expect(agent.status).toBe(404);
  });

  it('returns 415 with Accept-Encoding: identity for a body sent with a Content-Encoding', async () => {
    const body = JSON.stringify({ name: 'encoded-body' });
    for (const [coding, raw] of [
      ['gzip', gzipSync(body)],
      ['br', Buffer.from(body)],
      ['identity, deflate', deflateSync(body)],
    ] as const) {
      const res = await call(server, 'POST', '/api/v1/agents', {
        key,
        rawBody: raw,
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
      });
      expect(res.status).toBe(415);
      expect(res.headers.get('accept-encoding')).toBe('identity');
      const named = coding.replace('identity, ', '');
      expect(res.body).toEqual({
        detail: {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: `The body is sent with Content-Encoding: ${named}; send it unencoded.`,
        },
      });
    }
    expect((await call(server, 'GET', '/api/v1/agents/encoded-body', { key })).status).toBe(404);
    const identity = await call(server, 'POST', '/api/v1/agents', {
      key,
      rawBody: body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
    });
    expect(identity.status).toBe(201);
    const bodyless = await call(server, 'GET', '/api/v1/agents/encoded-body', {
      key,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(bodyless.status).toBe(200);
  });

  it('still authenticates first: 401 before 415', async () => {
    for (const headers of [
      { 'content-type': 'text/plain' } as Record<string, string>,
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    ]) {
      const res = await call(server, 'POST', '/api/v1/agents', { rawBody: '{}', headers });
      expect(res.status).toBe(401);
    }
  });

  it('takes JSON with a charset or a +json type, and an empty body of any type', async () => {
    const created = await call(server, 'POST', '/api/v1/agents', {
      key,
      rawBody: JSON.stringify({ name: 'json-charset' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(created.status).toBe(201);
    const patched = await call(server, 'PATCH', '/api/v1/agents/json-charset', {
      key,
      rawBody: JSON.stringify({ description: 'merge patch' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    // An empty body with no JSON type reaches validation (AgentCreate requires a name).
    const empty = await call(server, 'POST', '/api/v1/agents', {
      key,
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(422);
  });
});
