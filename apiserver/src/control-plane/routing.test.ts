import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import * as yup from 'yup';
import { createLogger } from '../../../common/logger.js';
import { requestContext } from '../middleware/request-context.js';
import { controlPlaneErrors } from './error-envelope.js';
import { mountRoutes, route, type RouteGuards } from './routing.js';

let server: Server;
let base: string;
const seen: unknown[] = [];
const unauthenticated: RouteGuards = {
  authenticate: () => Promise.reject(new Error('no route here authenticates')),
  rateLimit: () => Promise.resolve(),
};

beforeAll(async () => {
  const app = new Koa();
  app.silent = true;
  app.use(requestContext(createLogger('test', 'silent')));
  app.use(controlPlaneErrors());
  const things = route({
    method: 'get',
    path: '/things/:id',
    operationId: 'getThing',
    summary: 'A thing',
    tag: 'Test',
    authenticated: false,
    params: yup.object({ id: yup.string().max(5).required() }),
    query: yup.object({ tags: yup.array(yup.string().required()).optional() }),
    responses: { 200: { description: 'The thing.' } },
    errors: [],
    handler: async (ctx, { params, query }) => {
      seen.push(structuredClone({ params, query }));
      // A handler that changes its input must not change what the next request gets.
      (params as { id: string }).id = 'changed';
      query.tags?.push('changed');
      ctx.body = { ok: true };
    },
  });
  app.use(mountRoutes([things], unauthenticated).routes());
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe('route inputs', () => {
  it('are validated once per input and handed to each request as its own copy', async () => {
    for (let i = 0; i < 3; i++)
      expect((await fetch(`${base}/things/abc?tags=x&tags=y`)).status).toBe(200);
    expect(seen).toEqual(Array(3).fill({ params: { id: 'abc' }, query: { tags: ['x', 'y'] } }));
  });

  it('that fail are refused every time', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}/things/toolong`);
      expect(res.status).toBe(422);
      expect(((await res.json()) as { detail: { code: string } }).detail.code).toBe(
        'VALIDATION_ERROR',
      );
    }
  });

  it('too long to remember are validated all the same', async () => {
    const tags = Array.from({ length: 60 }, (_, i) => `tags=t${i}`).join('&');
    for (let i = 0; i < 2; i++)
      expect((await fetch(`${base}/things/abc?${tags}`)).status).toBe(200);
    expect((seen.at(-1) as { query: { tags: string[] } }).query.tags).toHaveLength(60);
  });
});
