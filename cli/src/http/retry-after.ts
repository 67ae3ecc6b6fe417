/** How long to wait before sending a refused request again. */

const FALLBACK_BASE_MS = 1000;

/**
 * The delay a 429 or 503 asks for: the `Retry-After` header (seconds or an
 * HTTP date), else the envelope's `retry_after_seconds`, else 1 s doubling
 * with each attempt.
 */
export function retryDelayMs(
  header: string | null,
  details: Record<string, unknown>,
  attempt: number,
  now: number = Date.now(),
): number {
  if (header !== null && header.trim() !== '') {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const fromBody = details.retry_after_seconds;
  if (typeof fromBody === 'number' && fromBody >= 0) return Math.ceil(fromBody * 1000);
  return FALLBACK_BASE_MS * 2 ** attempt;
}
