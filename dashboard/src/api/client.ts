/**
 * The dashboard's one way to the public REST APIs: the control plane (same
 * origin as the page) and the vector plane (its URL from
 * `/dashboard/config.json`), each call with the signed-in key as a bearer
 * token. Errors become {@link ApiFailure}s carrying the contract's code and message.
 */
import { ApiFailure, failureFrom, failureOf } from './errors.js';
import { budgetFrom, pollDelay } from './poll-budget.js';

/** Which API a call goes to. */
export type Plane = 'control' | 'vectors';

/** A client bound to one key. */
export class ApiClient {
  /** The control plane's per-minute budget for this key, as its last answer said (null: none). */
  private budget: number | null = null;

  constructor(
    private readonly key: string,
    private readonly vectorsUrl: string,
    private readonly controlUrl = '',
  ) {}

  /** The base URL of `plane`. */
  base(plane: Plane): string {
    return plane === 'control' ? this.controlUrl : this.vectorsUrl;
  }

  /** Sends a JSON request (body when given) and returns the parsed answer; throws ApiFailure. */
  async call<T>(plane: Plane, method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.base(plane)}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (err) {
      throw failureOf(err);
    }
    if (plane === 'control' && res.ok)
      this.budget = budgetFrom(res.headers.get('x-ratelimit-limit'));
    const text = await res.text();
    const parsed = parseJson(text);
    if (!res.ok) throw failureFrom(res.status, parsed);
    return parsed as T;
  }

  /** The delay between polls of a page whose base delay is `baseMs`, for this key's budget. */
  pollMs(baseMs: number): number {
    return pollDelay(baseMs, this.budget);
  }

  /** GET on the control plane. */
  get<T>(path: string): Promise<T> {
    return this.call<T>('control', 'GET', path);
  }

  /** POST on the control plane. */
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('control', 'POST', path, body);
  }

  /** A request to the vector plane. */
  vectors<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.call<T>('vectors', method, path, body);
  }

  /**
   * Uploads `archive` (a tar.gz) to the control plane with upload progress
   * (fetch reports none, so XMLHttpRequest); resolves with the parsed answer.
   */
  upload<T>(
    path: string,
    archive: Blob,
    onProgress: (sent: number, total: number) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${this.controlUrl}${path}`);
      xhr.setRequestHeader('authorization', `Bearer ${this.key}`);
      xhr.setRequestHeader('content-type', 'application/gzip');
      xhr.upload.onprogress = (e) =>
        onProgress(e.loaded, e.lengthComputable ? e.total : archive.size);
      xhr.onerror = () => reject(new ApiFailure(0, 'NETWORK_ERROR', 'The upload failed.'));
      xhr.onload = () => {
        const parsed = parseJson(xhr.responseText);
        if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
        else reject(failureFrom(xhr.status, parsed));
      };
      xhr.send(archive);
    });
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
