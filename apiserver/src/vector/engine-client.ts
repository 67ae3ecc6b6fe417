/**
 * The gateway's HTTP client of the engine (`engine/` or a real Qdrant). It
 * only moves bytes (searches may go through search-coalescer.ts, which wraps
 * this client and joins concurrent ones into batch requests; the vector
 * plane's assembly chooses), presents the engine's API key on every request, and
 * turns transport failures (and a refused key) into the contract's 502/504;
 * tenancy and error normalisation happen in the callers.
 */
import { errors, Pool, type Dispatcher } from 'undici';
import { GatewayTimeout, ProxyError, ResponseTooLarge } from '../errors/catalogue.js';

/** The largest response the gateway relays (10 MB). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** What the engine answered. */
export interface EngineResponse {
  status: number;
  text: string;
}

/** How a wrapper of the client sends one request (the client's own {@link EngineClient.send}). */
export type EngineSend = (
  method: string,
  path: string,
  body: Buffer,
  query: string,
) => Promise<EngineResponse>;

/**
 * Sends searches: the client itself, one request each, or a wrapper of it
 * that joins concurrent ones into batches (search-coalescer.ts).
 */
export interface SearchSender {
  search(path: string, batchPath: string, body: Buffer, query: string): Promise<EngineResponse>;
}

/**
 * A thin client of the engine's REST API over an undici connection pool:
 * on a search, node:http's ClientRequest and Agent cost the gateway more CPU
 * than everything else it does, and undici's pool about half of that.
 */
export class EngineClient implements SearchSender {
  private readonly pool: Pool;
  private readonly prefix: string;
  /** Headers of a request without a body, and of one with a JSON body. */
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;

  /**
   * `apiKey` goes in Qdrant's `api-key` header of every request (the engine
   * refuses requests without it).
   */
  constructor(
    baseUrl: string,
    { apiKey, timeoutMs = 60_000 }: { apiKey?: string; timeoutMs?: number } = {},
  ) {
    const base = new URL(baseUrl);
    this.prefix = base.pathname.replace(/\/$/, '');
    this.headers = apiKey === undefined ? {} : { 'api-key': apiKey };
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
    this.pool = new Pool(base.origin, {
      connections: 256,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /** POSTs a search or query (`body`, JSON bytes) to `path`, alone (`batchPath` is for wrappers). */
  search(path: string, _batchPath: string, body: Buffer, query = ''): Promise<EngineResponse> {
    return this.send('POST', path, body, query);
  }

  /**
   * Sends one request. `body` is JSON text or bytes (or an object to serialise). A
   * response over {@link MAX_RESPONSE_BYTES} is refused with 413
   * RESPONSE_TOO_LARGE without being relayed, so a caller never receives a
   * half-sent body.
   */
  async send(method: string, path: string, body?: unknown, query = ''): Promise<EngineResponse> {
    const text =
      body === undefined || typeof body === 'string' || Buffer.isBuffer(body)
        ? body
        : JSON.stringify(body);
    let res: Dispatcher.ResponseData;
    try {
      res = await this.pool.request({
        method: method as Dispatcher.HttpMethod,
        path: `${this.prefix}${path}${query ? `?${query}` : ''}`,
        headers: text === undefined ? this.headers : this.jsonHeaders,
        body: text,
      });
    } catch (cause) {
      throw transportFailure(cause);
    }
    if (res.statusCode === 401 || res.statusCode === 403) {
      // The engine refused the gateway itself, not the caller: a configuration fault.
      const answer = await res.body.text().catch(() => '');
      throw new ProxyError('The vector engine refused the gateway; retry later.', {
        cause: new Error(`the engine answered ${res.statusCode} ${answer.slice(0, 200)}`),
      });
    }
    const declared = Number(res.headers['content-length'] ?? 0);
    if (declared > MAX_RESPONSE_BYTES) {
      // Destroying the body makes it emit an abort error, which nobody else will read.
      res.body.once('error', () => undefined);
      res.body.destroy();
      throw responseTooLarge(declared);
    }
    if (res.headers['content-length'] !== undefined) {
      // Length known and within the cap: one native read of the whole body.
      try {
        return { status: res.statusCode, text: await res.body.text() };
      } catch (cause) {
        throw transportFailure(cause, 'The vector engine response was cut short; retry.');
      }
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        // Leaving the loop destroys the body.
        if (size > MAX_RESPONSE_BYTES) throw responseTooLarge(size);
        chunks.push(chunk);
      }
    } catch (cause) {
      if (cause instanceof ResponseTooLarge) throw cause;
      throw transportFailure(cause, 'The vector engine response was cut short; retry.');
    }
    return {
      status: res.statusCode,
      text:
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
    };
  }

  /** Closes the pool's connections. */
  close(): void {
    void this.pool.destroy();
  }
}

/** 504 for a timeout, 502 for anything else that kept the answer from arriving. */
function transportFailure(
  cause: unknown,
  message = 'The vector engine could not be reached; retry.',
): GatewayTimeout | ProxyError {
  if (cause instanceof errors.HeadersTimeoutError || cause instanceof errors.BodyTimeoutError) {
    return new GatewayTimeout('The vector engine did not answer in time; retry.', { cause });
  }
  return new ProxyError(message, { cause });
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
