/**
 * Keeps secret values out of the answers to malformed requests on the secret
 * and code-host routes. The JSON parser's message quotes the text around the error (which
 * may be the value itself), so on these routes an invalid-JSON violation says
 * only that the body is not JSON. Request bodies are never logged anywhere
 * (the access line holds method, path and status), so this is the one place
 * a submitted value could come back.
 */
import type { Middleware } from 'koa';
import { ValidationFailed } from '../errors/catalogue.js';

/**
 * Paths whose request bodies may hold a secret value: the secret routes and
 * the code-host routes (`PUT /auth/codehost` carries the host's access token).
 */
export const SECRET_PATH = /\/(secrets|codehost)(\/|$)/;

interface Violation {
  loc: unknown[];
  msg: string;
  type: string;
}

/** The middleware; place it inside the error envelope, before the routes. */
export function secretBodies(): Middleware {
  return async (ctx, next) => {
    if (!SECRET_PATH.test(ctx.path)) return next();
    try {
      await next();
    } catch (err) {
      const violations = (err as ValidationFailed).fields?.violations as Violation[] | undefined;
      if (err instanceof ValidationFailed && Array.isArray(violations)) {
        for (const violation of violations) {
          if (violation.type === 'json_invalid') violation.msg = 'Invalid JSON';
        }
      }
      throw err;
    }
  };
}
