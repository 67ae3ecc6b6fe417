import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import winston from 'winston';
import { requestContext, type RequestState } from './request-context.js';

/** A logger whose lines land in `lines`, as JSON objects. */
function capturingLogger(lines: Record<string, unknown>[]): winston.Logger {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return winston.createLogger({
    level: 'info',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
}

describe('requestContext', () => {
  it('gives each request its id, echoed, and a logger carrying it on ctx.state.log', async () => {
    const lines: Record<string, unknown>[] = [];
    const app = new Koa<RequestState>();
    app.use(requestContext(capturingLogger(lines)));
    app.use(async (ctx) => {
      ctx.state.log.info('handled', { n: 1 });
      // The same logger however often it is read.
      expect(ctx.state.log).toBe(ctx.state.log);
      ctx.body = { id: ctx.state.requestId, keys: Object.keys(ctx.state) };
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const mine = await fetch(base, { headers: { 'x-request-id': 'abc-1' } });
      expect(mine.headers.get('x-request-id')).toBe('abc-1');
      expect(await mine.json()).toEqual({ id: 'abc-1', keys: ['requestId', 'log'] });
      const insane = await fetch(base, { headers: { 'x-request-id': 'no spaces allowed' } });
      const given = insane.headers.get('x-request-id') ?? '';
      expect(given).toMatch(/^[0-9a-f-]{36}$/);
      await new Promise((resolve) => setImmediate(resolve));
      const handled = lines.filter((l) => l.message === 'handled').map((l) => l.request_id);
      expect(handled).toEqual(['abc-1', given]);
      const access = lines.filter((l) => l.message === 'request').map((l) => l.request_id);
      expect(access).toEqual(['abc-1', given]);
    } finally {
      server.close();
    }
  });
});
