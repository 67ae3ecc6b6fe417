/**
 * The control plane's outermost middleware, turning errors into the contract's
 * envelopes: a catalogue error becomes `{detail:{code, message, ...fields}}`
 * with its status and headers (a method the path does not take is one:
 * 405 METHOD_NOT_ALLOWED, see routing.ts); a path no route matched 404
 * `{detail:"Not Found"}`; anything else 500 with plain text `Internal Server Error`,
 * logged with the request id (the message never reaches the client).
 */
import type { Middleware } from 'koa';
import { ApiError } from '../errors/catalogue.js';
import type { RequestState } from '../middleware/request-context.js';

/** The JSON body of a catalogue error on the control plane. */
export function detailEnvelope(err: ApiError): { detail: Record<string, unknown> } {
  return { detail: { code: err.code, message: err.message, ...err.fields } };
}

/** Turns errors, and unmatched paths and methods, into the contract's responses. */
export function controlPlaneErrors(): Middleware<RequestState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        // Setting a body makes Koa answer 200 unless the status is set again after it.
        const status = ctx.status;
        if (status === 404) {
          ctx.body = { detail: 'Not Found' };
          ctx.status = status;
        }
      }
    } catch (err) {
      if (err instanceof ApiError) {
        if (err.status >= 500)
          ctx.state.log.warn('request failed', { code: err.code, err: err.cause ?? err });
        ctx.status = err.status;
        ctx.set(err.headers);
        // A body left unread (too large, refused early) leaves the connection unusable for another request.
        if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
        ctx.body = detailEnvelope(err);
        return;
      }
      ctx.state.log.error('unhandled error', { err });
      ctx.status = 500;
      ctx.type = 'text/plain';
      ctx.body = 'Internal Server Error';
    }
  };
}
