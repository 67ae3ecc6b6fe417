/**
 * Refuses, before any route reads it, a control-plane request body sent with a content coding:
 * every route reads its body as sent (JSON, a code upload, a webhook's signed bytes), so a gzip
 * body would be parsed as garbage and a `br` one taken as plain. See http/content-encoding.ts.
 */
import type { Middleware } from 'koa';
import { EncodedBodyRefused } from '../errors/catalogue.js';
import { ACCEPTED_REQUEST_ENCODING, requestBodyCodings } from '../http/content-encoding.js';

/** The middleware; place it inside the error envelope, before the routes. */
export function refuseEncodedBodies(): Middleware {
  return async (ctx, next) => {
    const codings = requestBodyCodings(ctx.req.headers);
    if (codings.length > 0) {
      throw new EncodedBodyRefused(
        `The body is sent with Content-Encoding: ${codings.join(', ')}; send it unencoded.`,
        { headers: ACCEPTED_REQUEST_ENCODING },
      );
    }
    return next();
  };
}
