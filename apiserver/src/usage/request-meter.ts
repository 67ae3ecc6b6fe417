/**
 * Meters requests: each authenticated request to a front door is one usage
 * event of that door's kind (coalesced per minute by the writer), attributed
 * to the agent when an agent's own key made it. Unauthenticated requests
 * (probes, webhooks, refused keys) are not the account's usage.
 */
import type { Context, Next } from 'koa';
import type { AuthContext } from '../auth/authenticate.js';
import { RateLimitExceeded } from '../errors/catalogue.js';
import type { UsageKind } from './model.js';
import type { UsageRecorder } from './usage-writer.js';

/** Records one request of `kind` for `caller`. */
export function recordRequest(recorder: UsageRecorder, kind: UsageKind, caller: AuthContext): void {
  recorder.record({
    accountId: caller.account._id,
    environment: caller.tenant.environment,
    agentId: caller.key.agentId,
    kind,
  });
}

/**
 * Koa middleware recording every request that authenticated (`ctx.state.auth`)
 * and was let through the rate limit, whatever its answer.
 */
export function requestMeter(recorder: UsageRecorder, kind: UsageKind) {
  // No closure per request: under tsx each one is named, which costs more than the record.
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (err) {
      // Refused by the per-minute budget: not served, so not usage (as on the vector plane).
      if (!(err instanceof RateLimitExceeded)) recordCaller(recorder, kind, ctx);
      throw err;
    }
    recordCaller(recorder, kind, ctx);
  };
}

/** Records the request of `ctx` when it authenticated. */
function recordCaller(recorder: UsageRecorder, kind: UsageKind, ctx: Context): void {
  const auth = (ctx.state as { auth?: AuthContext }).auth;
  if (auth) recordRequest(recorder, kind, auth);
}

/** A guard (authenticate and rate-limit) that records each request it lets through. */
export function meteredGuard<A extends unknown[]>(
  guard: (...args: A) => Promise<AuthContext>,
  recorder: UsageRecorder,
  kind: UsageKind = 'vector_request',
): (...args: A) => Promise<AuthContext> {
  return async (...args) => {
    const caller = await guard(...args);
    recordRequest(recorder, kind, caller);
    return caller;
  };
}
