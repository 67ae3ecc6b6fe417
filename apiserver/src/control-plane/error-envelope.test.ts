import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createLogger } from '../../../common/logger.js';
import { requestContext, type RequestState } from '../middleware/request-context.js';
import { controlPlaneErrors } from './error-envelope.js';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa<RequestState>();
  app.silent = true;
  app.use(requestContext(createLogger('test', 'silent')));
  app.use(controlPlaneErrors());
  app.use((ctx) => {
    if (ctx.path === '/boom') throw new Error('secret internals');
    if (ctx.path === '/ok') ctx.body = { fine: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

describe('controlPlaneErrors', () => {
  it('turns an unhandled error into 500 plain text without its message', async () => {
    const res = await fetch(`${base}/boom`);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('Internal Server Error');
  });

  it('turns an unmatched path into 404 {detail:"Not Found"}', async () => {
    const res = await fetch(`${base}/missing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not Found' });
  });

  it('leaves successful responses alone', async () => {
    const res = await fetch(`${base}/ok`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ fine: true });
  });
});
