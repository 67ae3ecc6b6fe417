/**
 * Authentication and the control plane's rate limit, as the route mounter
 * calls them. The limit is a sliding 60-second window per account, shared by
 * all replicas through MongoDB; successful responses carry X-RateLimit-*
 * headers (none for an unlimited plan). A rejected request does not count.
 * Requests are counted in memory and other replicas' counts read at most
 * LIMIT_STALENESS_MS (mongo-window-store.ts) old (no database round trip per request): exact within
 * one replica; across replicas each may admit what the others admitted in the
 * last LIMIT_STALENESS_MS on top of the limit.
 */
import type { Context } from 'koa';
import { authenticate, type AuthContext, type AuthDeps } from '../auth/authenticate.js';
import { RateLimitExceeded, ServiceUnavailable } from '../errors/catalogue.js';
import type { MongoWindowStore } from '../rate-limit/mongo-window-store.js';
import { DEFAULT_WINDOW_MS, evaluateWindow } from '../rate-limit/sliding-window.js';
import type { RouteGuards } from './routing.js';

/** Builds the guards of the control plane. */
export function controlPlaneGuards(
  auth: AuthDeps,
  windows: MongoWindowStore,
  now = () => Date.now(),
): RouteGuards {
  return {
    authenticate: (ctx: Context) => authenticate(ctx.get('authorization') || undefined, auth),
    rateLimit: async (ctx: Context, caller: AuthContext) => {
      const limit = caller.plan.requestsPerMinute;
      if (limit === null) return;
      const key = `cp:${caller.account._id}`;
      const at = now();
      let counts;
      try {
        counts = await windows.hitCached(key, at);
      } catch (cause) {
        throw new ServiceUnavailable(
          'The rate-limit store is unreachable; retry in a few seconds.',
          { cause },
        );
      }
      const verdict = evaluateWindow(counts, limit, at);
      if (!verdict.allowed) {
        await windows.undo(key, at, DEFAULT_WINDOW_MS, { persist: false });
        throw new RateLimitExceeded(`Rate limit of ${limit} requests per minute exceeded.`, {
          fields: { limit, retry_after_seconds: verdict.retryAfterSeconds },
          headers: { 'Retry-After': String(verdict.retryAfterSeconds) },
        });
      }
      ctx.set('X-RateLimit-Limit', String(limit));
      ctx.set('X-RateLimit-Remaining', String(verdict.remaining));
      ctx.set('X-RateLimit-Reset', String(verdict.resetSeconds));
    },
  };
}
