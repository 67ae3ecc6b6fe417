import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { EngineClient, MAX_RESPONSE_BYTES } from './engine-client.js';

// A real HTTP server standing in for an engine that hangs or answers too much.
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/hang') return; // Never answers.
    if (req.url === '/keyed' && req.headers['api-key'] !== 'the-key') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"status":{"error":"Invalid API key or JWT"}}');
      return;
    }
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i <= MAX_RESPONSE_BYTES / chunk.length; i++) res.write(chunk);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"result":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('EngineClient', () => {
  test('returns the status and text of an answer', async () => {
    const client = new EngineClient(base);
    expect(await client.send('GET', '/ok')).toEqual({ status: 200, text: '{"result":true}' });
    client.close();
  });

  test('sends its API key in the api-key header of every request', async () => {
    const client = new EngineClient(base, { apiKey: 'the-key' });
    expect(await client.send('GET', '/keyed')).toEqual({ status: 200, text: '{"result":true}' });
    expect(await client.send('POST', '/keyed', { a: 1 })).toEqual({
      status: 200,
      text: '{"result":true}',
    });
    client.close();
  });

  test('throws 502 PROXY_ERROR, not a 401, when the engine refuses its key', async () => {
    const client = new EngineClient(base, { apiKey: 'another-key' });
    await expect(client.send('GET', '/keyed')).rejects.toMatchObject({
      status: 502,
      code: 'PROXY_ERROR',
    });
    client.close();
  });

  test('throws 504 GATEWAY_TIMEOUT when the engine does not answer in time', async () => {
    const client = new EngineClient(base, { timeoutMs: 200 });
    await expect(client.send('GET', '/hang')).rejects.toMatchObject({
      status: 504,
      code: 'GATEWAY_TIMEOUT',
    });
    client.close();
  });

  test('throws 413 RESPONSE_TOO_LARGE for an answer over 10 MB, streamed without a length', async () => {
    const client = new EngineClient(base);
    await expect(client.send('GET', '/huge')).rejects.toMatchObject({
      status: 413,
      code: 'RESPONSE_TOO_LARGE',
      fields: { max_size_mb: 10 },
    });
    client.close();
  });

  test('throws 502 PROXY_ERROR when nothing listens', async () => {
    const client = new EngineClient('http://127.0.0.1:1');
    await expect(client.send('GET', '/')).rejects.toMatchObject({
      status: 502,
      code: 'PROXY_ERROR',
    });
    client.close();
  });
});
