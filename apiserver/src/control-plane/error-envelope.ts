/**
 * The control plane's outermost middleware: an unhandled error becomes 500 with
 * plain text `Internal Server Error` (logged with the request id), and a path no
 * route matched becomes 404 `{detail: "Not Found"}`, as the contract says.
 */
import type { Middleware } from 'koa';
import type { RequestState } from '../middleware/request-context.js';

/** Turns errors no handler covered, and unmatched paths, into the contract's responses. */
export function controlPlaneErrors(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { detail: 'Not Found' };
      }
    } catch (err) {
      ctx.state.log.error('unhandled error', { err });
      ctx.status = 500;
      ctx.type = 'text/plain';
      ctx.body = 'Internal Server Error';
    }
  };
}
