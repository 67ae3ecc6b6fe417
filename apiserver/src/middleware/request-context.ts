/**
 * Gives every request an id (the caller's `x-request-id` when it is a sane
 * token, else a new UUID), echoes it in the response, hangs a child logger
 * carrying it on `ctx.state.log`, and writes one access-log line per request.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../../common/logger.js';

/** State every front door's middleware can rely on. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request's id: the caller's `x-request-id` when it is a sane token, else a new UUID. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming !== undefined && SANE_ID.test(incoming) ? incoming : randomUUID();
}

/** Writes the one access-log line of a request (at info; nothing when info is off). */
export function logAccess(
  log: Logger,
  line: { method: string; path: string; status: number; started: number },
): void {
  if (!log.isLevelEnabled('info')) return;
  log.info('request', {
    method: line.method,
    path: line.path,
    status: line.status,
    duration_ms: Math.round((performance.now() - line.started) * 10) / 10,
  });
}

const BASE = Symbol('svc.request.baseLog');
const CHILD = Symbol('svc.request.log');

/** What the shared `log` getter reads from a request's state. */
interface LazyLogState {
  requestId: string;
  [BASE]: Logger;
  [CHILD]?: Logger;
}

/**
 * `ctx.state.log`, made on first use (most requests of a hot route never log
 * anything but the access line). One descriptor for every request: a getter
 * closure per request would cost more than the rest of this middleware.
 */
const LAZY_LOG: PropertyDescriptor = {
  get(this: LazyLogState): Logger {
    return (this[CHILD] ??= this[BASE].child({ request_id: this.requestId }));
  },
  enumerable: true,
  configurable: true,
};

/** Builds the middleware; `header` is the response header that carries the id. */
export function requestContext(log: Logger, header = 'x-request-id'): Middleware<RequestState> {
  return async (ctx, next) => {
    const requestId = requestIdFrom(ctx.get('x-request-id'));
    const state = ctx.state as RequestState & LazyLogState;
    state.requestId = requestId;
    state[BASE] = log;
    Object.defineProperty(state, 'log', LAZY_LOG);
    ctx.set(header, requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      if (log.isLevelEnabled('info')) {
        logAccess(ctx.state.log, {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          started,
        });
      }
    }
  };
}
