/**
 * Routes are declared once, as data: method, path, the yup schemas of their
 * path, query and body, their responses and the catalogue errors they return.
 * The same declaration mounts the Koa handler (authenticating, rate limiting
 * and validating before the handler runs) and feeds the OpenAPI document, so
 * the two cannot drift.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import * as yup from 'yup';
import type { AuthContext } from '../auth/authenticate.js';
import {
  AccountSuspended,
  AuthenticationError,
  InvalidApiKey,
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

/** A route declaration. */
export interface RouteSpec<P = Record<string, string>, Q = Record<string, unknown>, B = undefined> {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Koa path, e.g. `/api/v1/agents/:agent`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** False for unauthenticated routes (health probes, the document itself). */
  authenticated?: boolean;
  params?: yup.ObjectSchema<P & yup.AnyObject>;
  query?: yup.ObjectSchema<Q & yup.AnyObject>;
  body?: yup.Schema<B>;
  /** Name of the body's schema in the document's components. */
  bodySchemaName?: string;
  /** A non-JSON body the handler streams itself (documented, never buffered by the mounter). */
  rawBody?: { contentType: string; description: string };
  responses: Record<number, ResponseSpec>;
  /** Catalogue errors beyond those every authenticated route has. */
  errors: ErrorClass[];
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
    return await schema.validate(value, { abortEarly: false, strict, stripUnknown: !strict });
  } catch (err) {
    if (err instanceof yup.ValidationError) {
      const { message, violations } = validationErrorDetail(err, where);
      throw new ValidationFailed(message, { fields: { violations } });
    }
    throw err;
  }
}

/** Mounts the routes on a new router. */
export function mountRoutes(
  routes: readonly AnyRoute[],
  guards: RouteGuards,
): Router<ControlPlaneState> {
  const router = new Router<ControlPlaneState>();
  for (const spec of routes) {
    router[spec.method](spec.path, async (ctx) => {
      const typed = ctx as unknown as Context & { state: ControlPlaneState };
      let auth: AuthContext | undefined;
      if (spec.authenticated !== false) {
        auth = await guards.authenticate(typed);
        typed.state.auth = auth;
        await guards.rateLimit(typed, auth);
      }
      const params = await validate(spec.params, { ...ctx.params }, 'path', false);
      const query = await validate(spec.query, { ...ctx.query }, 'query', false);
      let body: unknown;
      if (spec.body) {
        const raw = await readJsonBody(ctx);
        // Bodies are checked strictly: JSON has types, so "5" is not a number here.
        body = await validate(spec.body, raw, 'body', true);
      }
      await spec.handler(typed, { params, query, body, auth: auth as AuthContext });
    });
  }
  return router;
}
