/**
 * The one HTTP client of the CLI, for both front doors (control plane and
 * vector plane): bearer authentication, JSON in and out, the error envelopes
 * read into {@link ApiError}, and the retries the contract asks for: a 429
 * `RATE_LIMIT_EXCEEDED` or a 503 (`RESOURCE_BUSY`, `SERVICE_UNAVAILABLE`) is
 * sent again after the `Retry-After` delay, a few times. Other 429s (a plan's
 * storage cap, runs in flight) are refusals that waiting a minute does not
 * lift: they fail at once.
 */
import { CliError, EXIT, apiErrorFromBody } from '../errors.js';
import { retryDelayMs } from './retry-after.js';

/** A query string's values; undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** One request. */
export interface RequestOptions {
  query?: Query;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is, with `contentType`, streamed in chunks so progress can be shown. */
  body?: Buffer;
  contentType?: string;
  /** Called as the raw body is handed to the connection: bytes sent so far, of `total`. */
  onUploadProgress?: (sent: number, total: number) => void;
}

/** How a client is set up. */
export interface ApiClientOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  /** Attempts after the first for a 429 `RATE_LIMIT_EXCEEDED` or a 503 (default 4). */
  retries?: number;
  /** The longest one wait may be, whatever Retry-After says (default 60 s). */
  maxRetryWaitMs?: number;
  /** Told before each retry (the CLI prints it on stderr). */
  onRetry?: (info: { status: number; code: string; waitMs: number; attempt: number }) => void;
}

/** Whether an answer is one the client sends again after a wait. */
function retried(status: number, code: string): boolean {
  return status === 503 || (status === 429 && code === 'RATE_LIMIT_EXCEEDED');
}
const UPLOAD_CHUNK_BYTES = 64 * 1024;

/** A client of one front door. */
export class ApiClient {
  private readonly retries: number;
  private readonly maxRetryWaitMs: number;

  constructor(private readonly options: ApiClientOptions) {
    this.retries = options.retries ?? 4;
    this.maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  }

  /** The front door's base address. */
  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Sends the request (again after a rate limit or a 503) and returns the parsed JSON answer. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const text = await this.requestText(method, path, opts);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T;
    }
  }

  /** As {@link request}, the answer's text as it came. */
  async requestText(method: string, path: string, opts: RequestOptions = {}): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.send(method, path, opts);
      const text = await res.text();
      if (res.ok) return text;
      const error = apiErrorFromBody(res.status, text);
      if (!retried(res.status, error.code) || attempt >= this.retries) throw error;
      const waitMs = Math.min(
        retryDelayMs(res.headers.get('retry-after'), error.details, attempt),
        this.maxRetryWaitMs,
      );
      this.options.onRetry?.({
        status: res.status,
        code: error.code,
        waitMs,
        attempt: attempt + 1,
      });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  private async send(method: string, path: string, opts: RequestOptions): Promise<Response> {
    const url = new URL(path, this.options.baseUrl);
    for (const [key, value] of Object.entries(opts.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: string | ReadableStream<Uint8Array> | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.body) {
      headers['content-type'] = opts.contentType ?? 'application/octet-stream';
      headers['content-length'] = String(opts.body.length);
      body = chunked(opts.body, opts.onUploadProgress);
    }
    try {
      return await fetch(url, {
        method,
        headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach ${this.options.baseUrl}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        EXIT.network,
      );
    }
  }
}

/** `buffer` as a stream of chunks, reporting each one as the connection pulls it. */
function chunked(
  buffer: Buffer,
  onProgress?: (sent: number, total: number) => void,
): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= buffer.length) {
        controller.close();
        return;
      }
      const end = Math.min(offset + UPLOAD_CHUNK_BYTES, buffer.length);
      controller.enqueue(new Uint8Array(buffer.subarray(offset, end)));
      offset = end;
      onProgress?.(offset, buffer.length);
    },
  });
}
