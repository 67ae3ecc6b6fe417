/**
 * The client against a real HTTP server on loopback that answers as the
 * platform's front doors do when they refuse: envelopes, 429 with
 * Retry-After, 503, plain-text 500. The server is a scripted stand-in for
 * those answers only; the whole CLI runs against the real platform in
 * test/cli/svc-cli.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, CliError, EXIT } from '../errors.js';
import { ApiClient } from './api-client.js';

type Answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
let server: Server;
let base: string;
let answers: Answer[] = [];
let seen: { method: string; url: string; auth: string | undefined; bytes: number }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization,
        bytes: body.length,
      });
      const answer = answers.shift();
      if (answer) answer(req, res, body);
      else res.writeHead(500).end('no answer scripted');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function script(...next: Answer[]) {
  answers = next;
  seen = [];
}
const json =
  (status: number, value: unknown, headers: Record<string, string> = {}): Answer =>
  (_req, res) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(value));

describe('ApiClient', () => {
  it('sends the key, the query and JSON, and parses the answer', async () => {
    script((req, res, body) => json(200, { echo: JSON.parse(body.toString()) })(req, res, body));
    const client = new ApiClient({ baseUrl: base, apiKey: 'svc_test_k' });
    const answer = await client.request('POST', '/api/v1/x', {
      query: { a: 1, b: undefined },
      json: { y: 2 },
    });
    expect(answer).toEqual({ echo: { y: 2 } });
    expect(seen).toEqual([
      { method: 'POST', url: '/api/v1/x?a=1', auth: 'Bearer svc_test_k', bytes: 7 },
    ]);
  });

  it('waits as Retry-After says on a 429, then returns the answer', async () => {
    const limited = {
      detail: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', retry_after_seconds: 1 },
    };
    script(json(429, limited, { 'retry-after': '1' }), json(200, { ok: true }));
    const retries: unknown[] = [];
    const client = new ApiClient({ baseUrl: base, onRetry: (info) => retries.push(info) });
    const started = Date.now();
    expect(await client.request('GET', '/api/v1/agents')).toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(retries).toEqual([
      { status: 429, code: 'RATE_LIMIT_EXCEEDED', waitMs: 1000, attempt: 1 },
    ]);
    expect(seen).toHaveLength(2);
  });

  it('retries a 503 and gives up after the retries with the last error (exit code 6)', async () => {
    const busy = json(
      503,
      { detail: { code: 'RESOURCE_BUSY', message: 'busy' } },
      { 'retry-after': '0' },
    );
    script(busy, busy, busy);
    const client = new ApiClient({ baseUrl: base, retries: 2 });
    const error = await client.request('GET', '/api/v1/agents').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: 'RESOURCE_BUSY', exitCode: EXIT.unavailable });
    expect(seen).toHaveLength(3);
  });

  it('does not retry other errors, and reads each envelope', async () => {
    script(
      json(404, { detail: { code: 'AGENT_NOT_FOUND', message: 'no agent x', agent: 'x' } }),
      json(409, { error: { code: 'COLLECTION_IN_USE', message: 'in use' } }),
      json(404, { detail: 'Not Found' }),
      (_req, res) =>
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error'),
      json(401, { detail: { code: 'INVALID_API_KEY', message: 'bad key' } }),
    );
    const client = new ApiClient({ baseUrl: base });
    const fail = (path: string) => client.request('GET', path).catch((e: unknown) => e as ApiError);
    expect(await fail('/a')).toMatchObject({
      code: 'AGENT_NOT_FOUND',
      message: 'no agent x',
      details: { agent: 'x' },
      exitCode: EXIT.notFound,
    });
    expect(await fail('/b')).toMatchObject({ code: 'COLLECTION_IN_USE', exitCode: EXIT.rejected });
    expect(await fail('/c')).toMatchObject({ code: 'HTTP_404', message: 'Not Found' });
    expect(await fail('/d')).toMatchObject({
      code: 'HTTP_500',
      message: 'Internal Server Error',
      exitCode: EXIT.unavailable,
    });
    expect(await fail('/e')).toMatchObject({ code: 'INVALID_API_KEY', exitCode: EXIT.auth });
    expect(seen).toHaveLength(5);
  });

  it('fails at once on a 429 that is not the rate limit (a plan cap), with exit code 5', async () => {
    script(
      json(429, { error: { code: 'STORAGE_LIMIT_EXCEEDED', message: 'cap reached' } }),
      json(429, {
        detail: { code: 'PLAN_LIMIT_EXCEEDED', message: 'runs in flight', field: 'runs' },
      }),
    );
    const retries: unknown[] = [];
    const client = new ApiClient({ baseUrl: base, onRetry: (info) => retries.push(info) });
    const fail = (path: string) => client.request('GET', path).catch((e: unknown) => e as ApiError);
    expect(await fail('/a')).toMatchObject({
      status: 429,
      code: 'STORAGE_LIMIT_EXCEEDED',
      exitCode: EXIT.rejected,
    });
    expect(await fail('/b')).toMatchObject({
      status: 429,
      code: 'PLAN_LIMIT_EXCEEDED',
      exitCode: EXIT.rejected,
    });
    expect(retries).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it('streams a raw body with its content type and reports progress up to the total', async () => {
    script((req, res, body) =>
      json(202, { type: req.headers['content-type'], bytes: body.length })(req, res, body),
    );
    const body = Buffer.alloc(200_000, 7);
    const progress: number[] = [];
    const client = new ApiClient({ baseUrl: base });
    const answer = await client.request('POST', '/deploy', {
      body,
      contentType: 'application/gzip',
      onUploadProgress: (sent, total) => {
        expect(total).toBe(body.length);
        progress.push(sent);
      },
    });
    expect(answer).toEqual({ type: 'application/gzip', bytes: body.length });
    expect(progress.at(-1)).toBe(body.length);
    expect(progress.length).toBeGreaterThan(1);
  });

  it('fails with exit code 7 when nothing listens', async () => {
    const client = new ApiClient({ baseUrl: 'http://127.0.0.1:9' });
    const error = await client.request('GET', '/').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ exitCode: EXIT.network });
  });
});
