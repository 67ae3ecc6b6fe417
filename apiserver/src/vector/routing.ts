/**
 * The vector plane's routes are declared once, as data (see
 * http/declared-route.ts): the same declarations mount the Koa routes, feed
 * the OpenAPI document (openapi.ts) and choose what the node:http fast path
 * answers, with which body limit (fast-path.ts). Validation stays with each
 * route's rules, since this plane's 400s name the field its own way.
 */
import { tagRoute } from '../../../common/metrics/http-metrics.js';
import type { Context } from 'koa';
import type { AuthContext } from '../auth/authenticate.js';
import type { DeclaredRoute } from '../http/declared-route.js';
import type { VectorRouter } from './context.js';
import type { VectorGuard } from './guards.js';

/** A request of a route the fast path answers, read without Koa. */
export interface RawRequest {
  /** Path parameters, decoded as the router decodes them. */
  params: Record<string, string>;
  querystring: string;
  /** The body's bytes, read with the route's limit; undefined for a route without a body. */
  body(): Promise<Buffer | undefined>;
}

/** What the fast path sends: a status and JSON text. */
export interface RawAnswer {
  status: number;
  text: string;
}

/** A vector-plane route declaration. */
export interface VectorRoute extends DeclaredRoute {
  /** Whether a `/api/v1/workspaces/:workspace` twin of the path is mounted and documented too. */
  workspaceTwin?: boolean;
  /** The answer on success (a refused route's "success" is its refusal). */
  success: { status: number; description: string };
  /** The router layer's name; a named layer is never listed in `Allow` (see app.ts). */
  layerName?: string;
  /** The largest body the route reads; it reads none without one. */
  maxBodyBytes?: number;
  /** Answers through Koa; `caller` is the authenticated caller (unset when not authenticated). */
  handler(ctx: Context, caller: AuthContext): Promise<void> | void;
  /**
   * Answers straight from node:http, before Koa, for a route that needs
   * nothing of it; the same steps in the same order as `handler`.
   */
  raw?(request: RawRequest, caller: AuthContext): Promise<RawAnswer>;
}

/** The path of the workspace twin of a `/api/v1/...` path. */
export function workspaceTwinOf(path: string): string {
  return path.replace(/^\/api\/v1(?=\/)/, '/api/v1/workspaces/:workspace');
}

/** The Koa paths a declaration is served at: its own, then its workspace twin's. */
export function servedPaths(route: VectorRoute): string[] {
  return route.workspaceTwin ? [route.path, workspaceTwinOf(route.path)] : [route.path];
}

/** Declares a route (the identity function, there for the type). */
export function vectorRoute(route: VectorRoute): VectorRoute {
  return route;
}

/**
 * Mounts `routes` on `router`, in their order, each at its paths;
 * authenticated routes run their handler only for a caller the guard lets
 * through.
 */
export function mountVectorRoutes(
  router: VectorRouter,
  routes: readonly VectorRoute[],
  guard: VectorGuard,
): void {
  for (const route of routes) {
    const handle = async (ctx: Context) => {
      tagRoute(ctx.req, route.path);
      const caller =
        route.authenticated === false
          ? (undefined as unknown as AuthContext)
          : await guard(ctx.get('authorization'), ctx.get('api-key'));
      await route.handler(ctx, caller);
    };
    for (const path of servedPaths(route)) {
      if (route.layerName) router[route.method](route.layerName, path, handle);
      else router[route.method](path, handle);
    }
  }
}
