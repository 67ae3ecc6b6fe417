/**
 * The gateway's HTTP client of the engine (`engine/` or a real Qdrant). It
 * only moves bytes and turns transport failures into the contract's 502/504;
 * tenancy and error normalisation happen in the callers.
 */
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { GatewayTimeout, ProxyError, ResponseTooLarge } from '../errors/catalogue.js';

/** The largest response the gateway relays (10 MB). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** What the engine answered. */
export interface EngineResponse {
  status: number;
  text: string;
}

/** A thin client of the engine's REST API. */
export class EngineClient {
  private readonly base: URL;
  private readonly agent: Agent;
  private readonly request: typeof httpRequest;

  constructor(
    baseUrl: string,
    private readonly timeoutMs = 60_000,
  ) {
    this.base = new URL(baseUrl);
    const https = this.base.protocol === 'https:';
    // node:http rather than fetch: on a search the WHATWG stream plumbing of
    // fetch costs the gateway more CPU than everything else it does.
    this.agent = new (https ? HttpsAgent : Agent)({ keepAlive: true, maxSockets: 256 });
    this.request = https ? httpsRequest : httpRequest;
  }

  /**
   * Sends one request. `body` is JSON text (or an object to serialise). A
   * response over {@link MAX_RESPONSE_BYTES} is refused with 413
   * RESPONSE_TOO_LARGE without being relayed, so a caller never receives a
   * half-sent body.
   */
  send(method: string, path: string, body?: unknown, query = ''): Promise<EngineResponse> {
    const text =
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string | number> = {};
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(text);
    }
    return new Promise<EngineResponse>((resolve, reject) => {
      const req = this.request(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port,
          path: `${this.base.pathname.replace(/\/$/, '')}${path}${query ? `?${query}` : ''}`,
          method,
          headers,
          agent: this.agent,
        },
        (res) => {
          const declared = Number(res.headers['content-length'] ?? 0);
          if (declared > MAX_RESPONSE_BYTES) {
            res.destroy();
            reject(responseTooLarge(declared));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              res.destroy();
              reject(responseTooLarge(size));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 502,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (cause) =>
            reject(new ProxyError('The vector engine response was cut short; retry.', { cause })),
          );
        },
      );
      req.setTimeout(this.timeoutMs, () => {
        req.destroy();
        reject(new GatewayTimeout('The vector engine did not answer in time; retry.'));
      });
      req.on('error', (cause) =>
        reject(new ProxyError('The vector engine could not be reached; retry.', { cause })),
      );
      req.end(text);
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

function responseTooLarge(bytes: number): ResponseTooLarge {
  const maxMb = MAX_RESPONSE_BYTES / (1024 * 1024);
  return new ResponseTooLarge(
    `The response would exceed ${maxMb} MB; ask for fewer points, or leave out vectors or payloads.`,
    {
      fields: {
        size_mb: Math.ceil((bytes / (1024 * 1024)) * 10) / 10,
        max_size_mb: maxMb,
      },
    },
  );
}
