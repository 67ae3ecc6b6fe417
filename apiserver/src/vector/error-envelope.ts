/**
 * The vector plane's outermost middleware: every error becomes the contract's
 * `{error: {code, message, ...extras}}`, with `retriable: true` on the codes
 * the contract marks retryable. Unmatched paths are 404 NOT_FOUND and
 * unsupported methods 405 METHOD_NOT_ALLOWED in the same envelope; a
 * metadata store that cannot be reached is 503 SERVICE_UNAVAILABLE; anything
 * unexpected is 500 INTERNAL_ERROR, logged with the request id. Messages are
 * scrubbed of tenant-scoped engine names, whatever produced them.
 */
import type { Middleware } from 'koa';
import { ApiError, ServiceUnavailable } from '../errors/catalogue.js';
import { isDatabaseUnreachable } from '../store/unreachable.js';
import type { Logger } from '../../../common/logger.js';
import type { RequestState } from '../middleware/request-context.js';

/** Codes the contract marks safe to retry on an identical request. */
export const RETRIABLE_CODES: ReadonlySet<string> = new Set([
  'CLEANUP_IN_PROGRESS',
  'RATE_LIMIT_EXCEEDED',
  'PROXY_ERROR',
  'SERVICE_UNAVAILABLE',
  'GATEWAY_TIMEOUT',
  'RATE_LIMITED',
  'UPSTREAM_ERROR',
  'AUTHENTICATION_ERROR',
]);

const WORKSPACE_ENGINE_NAME = /\bw_(?:live|test)_[0-9a-fA-F]{32}_[a-z0-9-]+_/g;
const TENANT_ENGINE_NAME = /\bt_(?:live|test)_[0-9a-fA-F]{32}_/g;

/** `text` with every tenant-scoped engine name turned back into its bare name. */
export function scrubEngineNames(text: string): string {
  return text.replace(WORKSPACE_ENGINE_NAME, '').replace(TENANT_ENGINE_NAME, '');
}

/** The JSON body of an error on the vector plane. */
export function errorEnvelope(
  code: string,
  message: string,
  extras: Record<string, unknown> = {},
): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { code, message: scrubEngineNames(message), ...extras };
  if (RETRIABLE_CODES.has(code)) error.retriable = true;
  return { error };
}

/** Turns errors, and unmatched paths and methods, into the vector plane's envelope. */
export function vectorErrors(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) {
          ctx.body = errorEnvelope('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}.`);
          ctx.status = 404;
        } else if (ctx.status === 405) {
          ctx.body = errorEnvelope('METHOD_NOT_ALLOWED', `${ctx.method} is not supported here.`);
          ctx.status = 405;
        }
      }
    } catch (err) {
      const reply = errorReply(err, ctx.state.requestId, ctx.state.log);
      ctx.status = reply.status;
      ctx.set(reply.headers);
      // A body left unread (refused early) leaves the connection unusable for another request.
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      ctx.body = reply.body;
    }
  };
}

/** The answer to a request that failed with `err`. */
export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: { error: Record<string, unknown> };
}

/**
 * The answer to a failed request: the error's own status, headers and code
 * for an ApiError (logged when it is a 5xx), 503 SERVICE_UNAVAILABLE for a
 * MongoDB that cannot be reached (logged), 500 INTERNAL_ERROR (logged) for
 * anything else. All carry the request id.
 */
export function errorReply(failure: unknown, requestId: string, log: Logger): ErrorReply {
  const err =
    !(failure instanceof ApiError) && isDatabaseUnreachable(failure)
      ? new ServiceUnavailable('The metadata store is unreachable; retry in a few seconds.', {
          cause: failure,
        })
      : failure;
  if (err instanceof ApiError) {
    if (err.status >= 500) log.warn('request failed', { code: err.code, err: err.cause ?? err });
    return {
      status: err.status,
      headers: err.headers,
      body: errorEnvelope(err.code, err.message, { ...err.fields, request_id: requestId }),
    };
  }
  log.error('unhandled error', { err });
  return {
    status: 500,
    headers: {},
    body: errorEnvelope('INTERNAL_ERROR', 'Internal error.', { request_id: requestId }),
  };
}
