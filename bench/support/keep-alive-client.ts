/**
 * A plain HTTP/1.1 client with keep-alive for the engine benches, lighter than
 * fetch for many small requests: bodies given as strings are sent as they are
 * (serialised once by the caller, not on every request), so the client takes
 * less of the CPU it shares with the engine.
 */
import { Agent, request } from 'node:http';

/** Sends one request; resolves with the status and the raw body text. */
export type RawSend = (
  method: string,
  path: string,
  body?: unknown,
) => Promise<{ status: number; body: string }>;

/** A client of `base` with at most `sockets` connections, sending `headers` on every request. */
export function keepAliveClient(
  base: string,
  sockets: number,
  headers: Record<string, string> = {},
): RawSend {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const url = new URL(base);
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const text =
        body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers: { ...headers, ...(text ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
}
