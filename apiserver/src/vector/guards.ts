/**
 * Authentication and the vector plane's rate limit. Keys are the control
 * plane's (no subscription check: the vector contract has no
 * AUTH_SUBSCRIPTION_INACTIVE), presented as `Authorization: Bearer <key>` or
 * in an `api-key` header, which the official Qdrant clients send for their
 * own key option (`api_key=`, `apiKey`); Qdrant reads `api-key` first, and
 * so does the gateway. Same key, same checks either way. The limit is a fixed 60-second bucket per
 * account, counted under its own key so it never shares the control plane's
 * budget; a 429 carries no Retry-After, as the contract says, and a refused
 * request is taken back out of the count.
 */
import {
  authenticate,
  bearerToken,
  type AuthContext,
  type AuthDeps,
} from '../auth/authenticate.js';
import { MissingApiKey, RateLimitExceeded, ServiceUnavailable } from '../errors/catalogue.js';
import type { MongoWindowStore } from '../rate-limit/mongo-window-store.js';
import { DEFAULT_WINDOW_MS } from '../rate-limit/sliding-window.js';

/**
 * Authenticates and rate-limits one request by its `Authorization` and
 * `api-key` headers; returns the caller.
 */
export type VectorGuard = (
  authorization: string | undefined,
  apiKey?: string | undefined,
) => Promise<AuthContext>;

/**
 * The Authorization header a request's credentials amount to: `api-key`
 * (when not blank) as a bearer token, else the Authorization header as sent.
 */
export function presentedAuthorization(
  authorization: string | undefined,
  apiKey: string | undefined,
): string | undefined {
  const key = apiKey?.trim();
  if (key) return `Bearer ${key}`;
  return authorization || undefined;
}

/** Builds the guard of every authenticated vector route. */
export function vectorGuard(
  auth: AuthDeps,
  windows: MongoWindowStore,
  now: () => number = () => Date.now(),
): VectorGuard {
  return async (authorization, apiKey) => {
    const presented = presentedAuthorization(authorization, apiKey);
    if (bearerToken(presented) === null) {
      throw new MissingApiKey(
        'Send the API key as Authorization: Bearer <key> or in an api-key header.',
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    const caller = await authenticate(presented, auth, false);
    const limit = caller.plan.vectorRequestsPerMinute;
    if (limit === null) return caller;
    const key = `vp:${caller.account._id}`;
    const at = now();
    let counts;
    try {
      // The sliding-window store counts per fixed bucket; only the current bucket is used here.
      // Counted in memory between reads of other replicas' counts: no database round trip per request.
      counts = await windows.hitCached(key, at);
    } catch (cause) {
      throw new ServiceUnavailable('The rate-limit store is unreachable; retry in a few seconds.', {
        cause,
      });
    }
    if (counts.current > limit) {
      await windows.undo(key, at, DEFAULT_WINDOW_MS, { persist: false });
      throw new RateLimitExceeded(`Rate limit of ${limit} requests per minute exceeded.`, {
        fields: { field: 'requests_per_minute', max: limit },
      });
    }
    return caller;
  };
}
