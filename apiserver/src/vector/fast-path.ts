/**
 * The node:http fast path: the declared routes that carry a `raw` answer
 * (routing.ts; the point routes that only forward and relay: search, query,
 * scroll, count, retrieve, delete, the index routes) answered straight from
 * node:http in front of the Koa app. On a search, Koa's context, middleware
 * chain and a router of every route cost the gateway as much CPU as the rest
 * of its work together.
 *
 * Which paths it serves (each declaration's path and workspace twin), whether
 * it authenticates and the body limit all come from the declarations, and it
 * runs the same steps in the same order as the Koa stack (request id,
 * unsupported endpoints, authentication and rate limit, the route's own
 * steps, the error envelope, the access line) through the same functions.
 * Paths are matched with @koa/router's own layers, so a request gets the
 * same answer either way; anything it does not match (other routes, other
 * methods, HEAD) goes to Koa, where the same declarations are mounted too.
 */
import { tagRoute } from '../../../common/metrics/http-metrics.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import type { Logger } from '../../../common/logger.js';
import type { AuthContext } from '../auth/authenticate.js';
import { logAccess, requestIdFrom } from '../middleware/request-context.js';
import { errorReply } from './error-envelope.js';
import type { VectorGuard } from './guards.js';
import { readRequestBody } from './json-body.js';
import { servedPaths, type VectorRoute } from './routing.js';
import { isUnsupportedEndpoint } from './unsupported.js';

/** Answers a request and returns true, or returns false having touched nothing. */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What the fast path needs besides the routes. */
export interface FastPathDeps {
  log: Logger;
  guard: VectorGuard;
}

/** A declared route the fast path answers: one with a `raw` answer. */
type RawRoute = VectorRoute & Required<Pick<VectorRoute, 'raw'>>;

/** What the fast path uses of a @koa/router layer. */
interface Layer {
  match(path: string): boolean;
  captures(path: string): string[];
  params(path: string, captures: string[]): Record<string, string>;
}

/** One served path: the HTTP method, the router layer matching it, the route. */
interface Entry {
  method: string;
  layer: Layer;
  route: RawRoute;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A request the fast path takes: its route, path, decoded path parameters and query string. */
export interface FastMatch {
  route: RawRoute;
  path: string;
  params: Record<string, string>;
  querystring: string;
}

/**
 * The matcher of the routes among `routes` that have a `raw` answer, at each
 * of their paths: null for a request the fast path leaves to Koa.
 */
export function fastPathMatcher(
  routes: readonly VectorRoute[],
): (method: string, url: string) => FastMatch | null {
  // Layers are made by a router with the app router's options, so paths match the same way.
  const router = new Router();
  const entries: Entry[] = [];
  for (const route of routes) {
    if (!route.raw) continue;
    const method = route.method.toUpperCase();
    for (const path of servedPaths(route)) {
      const layer = router.register(path, [method], [() => undefined]) as unknown as Layer;
      entries.push({ method, layer, route: route as RawRoute });
    }
  }
  return (method, url) => {
    if (url[0] !== '/') return null;
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const entry = entries.find((e) => e.method === method && e.layer.match(path));
    if (!entry || isUnsupportedEndpoint(path, method)) return null;
    return {
      route: entry.route,
      path,
      params: entry.layer.params(path, entry.layer.captures(path)),
      querystring: q === -1 ? '' : url.slice(q + 1),
    };
  };
}

/** Builds the fast path of the declared `routes` that have a `raw` answer. */
export function fastPath(routes: readonly VectorRoute[], deps: FastPathDeps): Lane {
  const match = fastPathMatcher(routes);
  return (req, res) => {
    const matched = match(req.method ?? '', req.url ?? '');
    if (!matched) return false;
    answer(deps, req, res, matched).catch((err: unknown) => {
      // answer() sends every failure as an error reply; reaching here is a bug, not a request error.
      deps.log.error('fast path failed', { err });
      res.destroy();
    });
    return true;
  };
}

/** Runs one request to its answer; never rejects. */
async function answer(
  deps: FastPathDeps,
  req: IncomingMessage,
  res: ServerResponse,
  target: FastMatch,
): Promise<void> {
  const { route } = target;
  tagRoute(req, route.path);
  const started = performance.now();
  const requestId = requestIdFrom(headerOf(req, 'x-request-id'));
  let log: Logger | undefined;
  const requestLog = () => (log ??= deps.log.child({ request_id: requestId }));
  let status: number;
  try {
    const caller =
      route.authenticated === false
        ? (undefined as unknown as AuthContext)
        : await deps.guard(headerOf(req, 'authorization'), headerOf(req, 'api-key'));
    const { maxBodyBytes } = route;
    const answered = await route.raw(
      {
        params: target.params,
        querystring: target.querystring,
        body: async () =>
          maxBodyBytes === undefined ? undefined : readRequestBody(req, maxBodyBytes),
      },
      caller,
    );
    status = answered.status;
    send(res, status, answered.text, { 'x-request-id': requestId });
  } catch (err) {
    const reply = errorReply(err, requestId, requestLog());
    status = reply.status;
    const headers: Record<string, string> = { 'x-request-id': requestId, ...reply.headers };
    // A body left unread (refused early) leaves the connection unusable for another request.
    if (!req.readableEnded) headers.connection = 'close';
    send(res, status, JSON.stringify(reply.body), headers);
  }
  if (deps.log.isLevelEnabled('info')) {
    logAccess(requestLog(), { method: req.method ?? '', path: target.path, status, started });
  }
}

/** A request header as one string (`undefined` when absent), as Koa's `ctx.get` reads it. */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function send(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string>,
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...headers,
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
