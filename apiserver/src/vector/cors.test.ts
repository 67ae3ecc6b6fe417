import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withCors } from './cors.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(
    withCors(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"result":1}');
      },
      ['http://dash.example:8000'],
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('withCors', () => {
  it("answers an allowed origin's preflight naming the methods and headers", async () => {
    const res = await fetch(`${base}/api/v1/collections/x/points/delete`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://dash.example:8000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://dash.example:8000');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('lets an allowed origin read answers, and gives other origins no CORS header', async () => {
    const allowed = await fetch(base, { headers: { origin: 'http://dash.example:8000' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://dash.example:8000');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('x-collection-status');
    const other = await fetch(base, { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(await other.json()).toEqual({ result: 1 });
  });
});
