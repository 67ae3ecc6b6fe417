/**
 * The floor a Node proxy in the gateway's place cannot go below: a
 * node:http server that forwards every request to `SVC_ENGINE_URL` through
 * an undici pool (the gateway's engine client) and relays the answer, with
 * no routing, authentication, tenancy or checks (it adds the engine's key,
 * `SVC_ENGINE_API_KEY`, as the gateway does). bench/vector-gateway.ts
 * measures it beside the gateway. Prints `{"ready":"bare-proxy","url":...}`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { requireSecret } from '../../common/secrets.js';

const headers = {
  'content-type': 'application/json',
  'api-key': requireSecret('SVC_ENGINE_API_KEY'),
};

const pool = new Pool(process.env.SVC_ENGINE_URL ?? 'http://127.0.0.1:6333', {
  connections: 256,
});

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    pool
      .request({
        method: req.method as 'GET',
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks),
      })
      .then(async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
        res.end(body);
      })
      .catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    JSON.stringify({ ready: 'bare-proxy', url: `http://127.0.0.1:${port}` }) + '\n',
  );
});
process.once('SIGTERM', () => {
  server.close();
  void pool.destroy().then(() => process.exit(0));
});
