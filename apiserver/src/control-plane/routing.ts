/**
 * Routes are declared once, as data: method, path, the yup schemas of their
 * path, query and body, their responses and the catalogue errors they return.
 * The same declaration mounts the Koa handler (authenticating, rate limiting
 * and validating before the handler runs) and feeds the OpenAPI document, so
 * the two cannot drift.
 */
import { tagRoute } from '../../../common/metrics/http-metrics.js';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { IncomingHttpHeaders } from 'node:http';
import * as yup from 'yup';
import { cloneObject } from '../../../common/clone-object.js';
import { TtlCache } from '../../../common/ttl-cache.js';
import type { AuthContext } from '../auth/authenticate.js';
import { ACCEPTED_REQUEST_ENCODING, requestBodyCodings } from '../http/content-encoding.js';
import type { DeclaredRoute } from '../http/declared-route.js';
import {
  AccountSuspended,
  AuthenticationError,
  EncodedBodyRefused,
  InvalidApiKey,
  JsonBodyRequired,
  MethodNotAllowed,
  MissingApiKey,
  RateLimitExceeded,
  ServiceUnavailable,
  SubscriptionInactive,
  ValidationFailed,
  type ErrorClass,
} from '../errors/catalogue.js';
import type { RequestState } from '../middleware/request-context.js';
import { validationErrorDetail } from '../validation/violations.js';
import { readJsonBody } from './json-body.js';
import { indexRoutes } from './route-index.js';

/** Request state once a route has authenticated its caller. */
export interface ControlPlaneState extends RequestState {
  auth?: AuthContext;
}

/** One documented response of a route. */
export interface ResponseSpec {
  description: string;
  /** Name of a schema in the document's components, or an inline yup schema. */
  schema?: string | yup.Schema;
  contentType?: string;
}

/** The validated input a handler receives. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  auth: AuthContext;
}

/** A control-plane route declaration: the shared part, its yup schemas and its handler. */
export interface RouteSpec<
  P = Record<string, string>,
  Q = Record<string, unknown>,
  B = undefined,
> extends DeclaredRoute {
  operationId: string;
  tag: string;
  params?: yup.ObjectSchema<P & yup.AnyObject>;
  query?: yup.ObjectSchema<Q & yup.AnyObject>;
  body?: yup.Schema<B>;
  /** Name of the body's schema in the document's components. */
  bodySchemaName?: string;
  /** A non-JSON body the handler streams itself (documented, never buffered by the mounter). */
  rawBody?: { contentType: string; description: string };
  responses: Record<number, ResponseSpec>;
  handler(ctx: Context & { state: ControlPlaneState }, input: RouteInput<P, Q, B>): Promise<void>;
}

/** What every authenticated route can return. */
export const AUTHENTICATED_ROUTE_ERRORS: readonly ErrorClass[] = [
  MissingApiKey,
  InvalidApiKey,
  AccountSuspended,
  SubscriptionInactive,
  AuthenticationError,
  RateLimitExceeded,
  ValidationFailed,
  ServiceUnavailable,
];

/**
 * Every catalogue error `route` can return: those of authentication when it
 * is authenticated, 422 when it validates any input, 415 when it reads a JSON
 * body (not JSON) or any body (sent with a Content-Encoding), and its own.
 */
export function routeErrors(route: AnyRoute): ErrorClass[] {
  const errors = route.authenticated !== false ? [...AUTHENTICATED_ROUTE_ERRORS] : [];
  if (route.params || route.query || route.body) errors.push(ValidationFailed);
  if (route.body) errors.push(JsonBodyRequired);
  if (route.body || route.rawBody) errors.push(EncodedBodyRefused);
  for (const error of route.errors) if (!errors.includes(error)) errors.push(error);
  return [...new Set(errors)];
}

/** A route declaration with its types erased, for lists of routes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any>;

/** Declares a route; the identity function, there to infer the input types from the schemas. */
export function route<P, Q, B>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

/** What mounting needs from the server: who the caller is, and whether they are within budget. */
export interface RouteGuards {
  authenticate(ctx: Context & { state: ControlPlaneState }): Promise<AuthContext>;
  rateLimit(ctx: Context & { state: ControlPlaneState }, auth: AuthContext): Promise<void>;
}

async function validate<T>(
  schema: yup.Schema<T> | undefined,
  value: unknown,
  where: 'body' | 'query' | 'path',
  strict: boolean,
): Promise<T> {
  if (!schema) return undefined as T;
  try {
    // Synchronously: no schema has an asynchronous test, and the promise-based path costs
    // about twice as much per request.
    return schema.validateSync(value, { abortEarly: false, strict, stripUnknown: !strict });
  } catch (err) {
    if (err instanceof yup.ValidationError) {
      const { message, violations } = validationErrorDetail(err, where);
      throw new ValidationFailed(message, { fields: { violations } });
    }
    throw err;
  }
}

/** Inputs remembered per schema before the memory starts over (TtlCache's cap). */
const MEMO_SIZE = 1000;
/** The longest input (as JSON) remembered: a hostile client cannot make the memory large. */
const MEMO_KEY_MAX = 256;
/** Validation never goes stale: the cache is only bounded by its size. */
const validated = new WeakMap<yup.Schema, TtlCache<object>>();

/**
 * Path parameters or a query validated, remembered by input: yup takes about 10 us to
 * validate even a one-field object, and a client that polls an agent sends the same path
 * over and over. Validation is a function of the input alone (no schema reads a clock or a
 * context), so a remembered answer is the answer; each request gets its own deep copy. Failures
 * are not remembered (they throw each time).
 */
async function validateInput<T>(
  schema: yup.Schema<T> | undefined,
  value: Record<string, unknown>,
  where: 'query' | 'path',
): Promise<T> {
  if (!schema) return undefined as T;
  let byInput = validated.get(schema);
  if (!byInput) validated.set(schema, (byInput = new TtlCache<object>(Infinity, MEMO_SIZE)));
  const key = JSON.stringify(value);
  let result = byInput.get(key);
  if (!result) {
    result = (await validate(schema, value, where, false)) as object;
    if (key.length > MEMO_KEY_MAX) return result as T;
    byInput.set(key, result);
  }
  return cloneObject(result) as T;
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Answers a method the path does not take (TRACE included) with 405
 * METHOD_NOT_ALLOWED in the control plane's envelope and an Allow header;
 * OPTIONS gets 204 with the Allow header. A path no route takes stays 404.
 * Placed before the router's routes.
 */
export function methodNotAllowed(router: Router<ControlPlaneState>) {
  return async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
    await next();
    if (ctx.status !== 404 || (ctx.body !== undefined && ctx.body !== null)) return;
    const allowed = new Set<string>();
    for (const layer of router.match(ctx.path, ctx.method).path)
      for (const method of layer.methods) allowed.add(method);
    if (allowed.size === 0) return;
    const allow = METHOD_ORDER.filter((m) => allowed.has(m)).join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    throw new MethodNotAllowed(`${ctx.method} is not allowed on ${ctx.path}; it takes ${allow}.`, {
      headers: { Allow: allow },
    });
  };
}

/**
 * 415 for a request body sent with a content coding, after authentication like every other
 * refusal of a body: each route reads its body as sent (JSON, a code upload, a webhook's signed
 * bytes), so a gzip body was parsed as garbage and a `br` one taken as plain.
 */
function refuseEncodedBody(headers: IncomingHttpHeaders): void {
  const codings = requestBodyCodings(headers);
  if (codings.length === 0) return;
  throw new EncodedBodyRefused(
    `The body is sent with Content-Encoding: ${codings.join(', ')}; send it unencoded.`,
    { headers: ACCEPTED_REQUEST_ENCODING },
  );
}

/** Mounts the routes on a new router, indexed by their leading segments (route-index.ts). */
export function mountRoutes(
  routes: readonly AnyRoute[],
  guards: RouteGuards,
): Router<ControlPlaneState> {
  const router = new Router<ControlPlaneState>();
  for (const spec of routes) {
    router[spec.method](spec.path, async (ctx) => {
      tagRoute(ctx.req, spec.path);
      const typed = ctx as unknown as Context & { state: ControlPlaneState };
      let auth: AuthContext | undefined;
      if (spec.authenticated !== false) {
        auth = await guards.authenticate(typed);
        typed.state.auth = auth;
        await guards.rateLimit(typed, auth);
      }
      refuseEncodedBody(ctx.req.headers);
      const params = await validateInput(spec.params, { ...ctx.params }, 'path');
      const query = await validateInput(spec.query, { ...ctx.query }, 'query');
      let body: unknown;
      if (spec.body) {
        const raw = await readJsonBody(ctx);
        // Bodies are checked strictly: JSON has types, so "5" is not a number here.
        body = await validate(spec.body, raw, 'body', true);
      }
      await spec.handler(typed, { params, query, body, auth: auth as AuthContext });
    });
  }
  return indexRoutes(router);
}
