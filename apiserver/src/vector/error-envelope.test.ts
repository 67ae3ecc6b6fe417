import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import Koa from 'koa';
import { createLogger } from '../../../common/logger.js';
import { EngineError, RateLimitExceeded } from '../errors/catalogue.js';
import { requestContext, type RequestState } from '../middleware/request-context.js';
import { vectorErrors } from './error-envelope.js';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa<RequestState>();
  app.silent = true;
  app.use(requestContext(createLogger('test', 'silent')));
  app.use(vectorErrors());
  app.use((ctx) => {
    if (ctx.path === '/plain') throw new Error('t_live_0123456789abcdef0123456789abcdef_x broke');
    if (ctx.path === '/upstream') {
      throw new EngineError(
        503,
        'UPSTREAM_ERROR',
        'engine busy on t_test_0123456789abcdef0123456789abcdef_docs',
      );
    }
    if (ctx.path === '/limited') throw new RateLimitExceeded('slow down', { fields: { max: 1 } });
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function get(path: string) {
  const res = await fetch(base + path, { headers: { 'x-request-id': 'req-1' } });
  return { status: res.status, body: (await res.json()) as { error: Record<string, unknown> } };
}

describe('vectorErrors', () => {
  test('answers 500 INTERNAL_ERROR for an unexpected error, without its message', async () => {
    const res = await get('/plain');
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'Internal error.',
      request_id: 'req-1',
    });
  });

  test('marks retryable codes retriable and scrubs tenant-scoped names', async () => {
    const res = await get('/upstream');
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 'UPSTREAM_ERROR',
        message: 'engine busy on docs',
        retriable: true,
      }),
    );
  });

  test('keeps extras beside code and message', async () => {
    const res = await get('/limited');
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'RATE_LIMIT_EXCEEDED', max: 1, retriable: true }),
    );
  });

  test('answers 404 NOT_FOUND in the envelope when nothing handled the path', async () => {
    const res = await get('/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
