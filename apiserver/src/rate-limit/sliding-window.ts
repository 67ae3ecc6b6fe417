/**
 * Sliding-window rate limiting, the pure arithmetic (no I/O).
 *
 * We use the "sliding window counter" approximation rather than an exact
 * sliding log: each account needs only two fixed-window counters (the
 * current bucket and the one before it), so storage is O(1) per account (two
 * bucket documents, or with `MongoWindowStore` two per replica serving the
 * account) instead of one entry per request, and each request costs one counter
 * write plus one read. The previous bucket is
 * weighted by the share of it that still overlaps the sliding window, which
 * assumes its requests were spread evenly; the error is small and bounded,
 * and it avoids the burst-at-the-boundary problem of a plain fixed window.
 */

/** Default window length: 60 seconds. */
export const DEFAULT_WINDOW_MS = 60_000;

/**
 * Request counts of the two fixed buckets that make up the sliding window.
 * `current` includes the request being evaluated.
 */
export interface WindowCounts {
  /** Requests counted in the bucket before the current one. */
  previous: number;
  /** Requests counted in the current bucket, including the one being evaluated. */
  current: number;
}

/** The outcome of {@link evaluateWindow}, shaped for `RateLimit-*` / `Retry-After` headers. */
export interface WindowDecision {
  /** Whether the request fits within the limit. */
  allowed: boolean;
  /** Whole requests still available in the window right now (never negative). */
  remaining: number;
  /** Seconds until the current bucket ends (at least 1). */
  resetSeconds: number;
  /**
   * When rejected: the fewest whole seconds after which a retry would be
   * allowed, assuming no other traffic (at least 1, at most twice the window).
   * 0 when the request is allowed.
   */
  retryAfterSeconds: number;
}

/**
 * Start (epoch ms) of the fixed bucket containing `nowMs`: buckets are aligned
 * on multiples of the window length, so every replica agrees on them without
 * coordination. Each bucket is stored as one document, which is what keeps the
 * sliding-window approximation at O(1) storage per account.
 */
export function bucketStart(nowMs: number, windowMs = DEFAULT_WINDOW_MS): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/**
 * Decides one request with the sliding-window-counter approximation:
 * `estimate = previous * (1 - elapsedFractionOfCurrentBucket) + current`,
 * allowed when `estimate <= limit`. Two counters per account (two bucket
 * documents) are all it needs, instead of a log of every request's timestamp.
 *
 * The comparison is done in integer arithmetic (everything scaled by
 * `windowMs`) so that boundary cases such as exactly-at-limit are exact for
 * integer timestamps.
 */
export function evaluateWindow(
  counts: WindowCounts,
  limit: number,
  nowMs: number,
  windowMs = DEFAULT_WINDOW_MS,
): WindowDecision {
  if (!(windowMs > 0)) throw new RangeError(`windowMs must be positive, got ${windowMs}`);
  const start = bucketStart(nowMs, windowMs);
  const elapsed = nowMs - start;

  // estimate * windowMs, and limit * windowMs.
  const scaled = counts.previous * (windowMs - elapsed) + counts.current * windowMs;
  const scaledLimit = limit * windowMs;
  const allowed = scaled <= scaledLimit;
  const remaining = Math.max(0, Math.floor((scaledLimit - scaled) / windowMs));
  const resetSeconds = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));

  return {
    allowed,
    remaining,
    resetSeconds,
    retryAfterSeconds: allowed ? 0 : retryAfter(counts, limit, nowMs, start, windowMs),
  };
}

/**
 * The smallest whole `s >= 1` such that, with the rejected request taken back
 * and one new request made at `now + s`, the estimate fits the limit; capped at
 * twice the window (by then both buckets have rolled over and only the new
 * request counts).
 */
function retryAfter(
  counts: WindowCounts,
  limit: number,
  nowMs: number,
  start: number,
  windowMs: number,
): number {
  const current = Math.max(0, counts.current - 1);
  const previous = counts.previous;
  const scaledLimit = limit * windowMs;
  const cap = Math.ceil((2 * windowMs) / 1000);

  for (let s = 1; s < cap; s++) {
    const t = nowMs + s * 1000;
    const tStart = bucketStart(t, windowMs);
    const remainingShare = windowMs - (t - tStart);
    let scaled: number;
    if (tStart === start) {
      // Still in the same bucket: the retry joins the current bucket.
      scaled = previous * remainingShare + (current + 1) * windowMs;
    } else if (tStart === start + windowMs) {
      // One rollover: today's current bucket becomes the previous one.
      scaled = current * remainingShare + 1 * windowMs;
    } else {
      // Two or more rollovers: only the retry itself counts.
      scaled = 1 * windowMs;
    }
    if (scaled <= scaledLimit) return s;
  }
  return cap;
}
