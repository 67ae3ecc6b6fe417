/** Exponential backoff with jitter, shared by the work queue and the informer's restarts. */

/** Per-key exponential backoff after failures. */
export interface BackoffOptions {
  /** Delay after the first failure. */
  baseDelayMs: number;
  /** Upper bound of the delay, jitter included. */
  maxDelayMs: number;
  /** Relative spread, 0..1: 0.1 means ±10 %, so keys failing together do not retry together. */
  jitter: number;
}

/** 200 ms doubling to a 60 s cap, ±10 %. */
export const DEFAULT_BACKOFF: BackoffOptions = {
  baseDelayMs: 200,
  maxDelayMs: 60_000,
  jitter: 0.1,
};

/**
 * The delay before retry number `failures` (1 = after the first failure):
 * `baseDelayMs * 2^(failures-1)`, capped, with jitter. `random` returns [0, 1).
 */
export function backoffDelay(
  failures: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  // Clamp the exponent: past ~2^52 the product is Infinity anyway, and min() caps it.
  const exponent = Math.min(Math.max(0, failures - 1), 52);
  const raw = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  const spread = 1 + options.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(options.maxDelayMs, Math.round(raw * spread)));
}
