/**
 * API errors as the dashboard shows them: the contract's `code` and `message`
 * read from either envelope (`{detail:{code,message}}` on the control plane,
 * `{error:{code,message}}` on the vector plane), with fallbacks for answers
 * that carry neither (a plain-string `detail`, a non-JSON 500, no network).
 */

/** A failed API call: HTTP status (0 when nothing answered), stable code and message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** The ApiFailure an error answer with `status` and parsed (or raw text) `body` stands for. */
export function failureFrom(status: number, body: unknown): ApiFailure {
  const root = asRecord(body);
  const inner = asRecord(root?.detail) ?? asRecord(root?.error);
  if (inner && typeof inner.code === 'string') {
    const message = typeof inner.message === 'string' ? inner.message : inner.code;
    return new ApiFailure(status, inner.code, message);
  }
  if (root && typeof root.detail === 'string')
    return new ApiFailure(status, `HTTP_${status}`, root.detail);
  const text = typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 200) : '';
  return new ApiFailure(status, `HTTP_${status}`, text || `The server answered ${status}.`);
}

/** The ApiFailure for anything thrown while calling (network errors included). */
export function failureOf(err: unknown): ApiFailure {
  if (err instanceof ApiFailure) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiFailure(0, 'NETWORK_ERROR', message || 'The server could not be reached.');
}
