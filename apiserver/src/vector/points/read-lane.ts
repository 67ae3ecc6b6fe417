/**
 * The forwarding point routes that need nothing of Koa (search, query,
 * scroll, count, retrieve, delete, the index routes: no schema check, no
 * storage cap, no re-stamp), answered straight from node:http in front of the
 * Koa app. On a search, Koa's context, middleware chain and a router of every
 * route cost the gateway as much CPU as the rest of its work together.
 *
 * The lane runs the same steps in the same order as the Koa stack (request
 * id, unsupported endpoints, authentication and rate limit, the collection,
 * the body, the forward, the error envelope, the access line) through the
 * same functions, and matches paths with @koa/router's own layers, so a
 * request gets the same answer either way; anything it does not match (other
 * routes, other methods, HEAD) goes to Koa. The routes stay registered in
 * the Koa router too, for 405s and the OpenAPI document.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import type { Logger } from '../../../../common/logger.js';
import { logAccess, requestIdFrom } from '../../middleware/request-context.js';
import type { CollectionService } from '../collections/service.js';
import { resolveNamed } from '../context.js';
import type { EngineClient } from '../engine-client.js';
import { errorReply } from '../error-envelope.js';
import type { VectorGuard } from '../guards.js';
import { readRequestBody } from '../json-body.js';
import type { SchemaService } from '../schema/service.js';
import { isUnsupportedEndpoint } from '../unsupported.js';
import { forwardRequest, PREFIXES, relayedText, ROUTES, type PointRoute } from './routes.js';

/** Answers a request and returns true, or returns false having touched nothing. */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What the lane needs: the same services as the point routes. */
export interface ReadLaneDeps {
  log: Logger;
  guard: VectorGuard;
  collections: CollectionService;
  engine: EngineClient;
  schemas: SchemaService;
}

/** Whether a route can be answered without Koa: it forwards and relays, nothing more. */
export function inLane(route: PointRoute): boolean {
  return !route.grows && !route.schemaCheck && !route.restamp;
}

/** What the lane uses of a @koa/router layer. */
interface Layer {
  match(path: string): boolean;
  captures(path: string): string[];
  params(path: string, captures: string[]): Record<string, string>;
}

/** One lane route: the HTTP method, the router layer matching its path, the route. */
interface LaneEntry {
  method: string;
  layer: Layer;
  route: PointRoute;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A request the lane takes: its route, path, decoded path parameters and query string. */
export interface LaneMatch {
  route: PointRoute;
  path: string;
  params: Record<string, string>;
  querystring: string;
}

/**
 * The matcher of the lane's routes (those in {@link inLane}, under both
 * prefixes): null for a request the lane leaves to Koa.
 */
export function laneMatcher(): (method: string, url: string) => LaneMatch | null {
  // Layers are made by a router with the app router's options, so paths match the same way.
  const router = new Router();
  const entries: LaneEntry[] = [];
  for (const prefix of PREFIXES) {
    for (const route of ROUTES.filter(inLane)) {
      const method = route.method.toUpperCase();
      const layer = router.register(
        `${prefix}${route.path}`,
        [method],
        [() => undefined],
      ) as unknown as Layer;
      entries.push({ method, layer, route });
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

/** Builds the lane of the point routes in {@link inLane}. */
export function pointReadLane(deps: ReadLaneDeps): Lane {
  const match = laneMatcher();
  return (req, res) => {
    const matched = match(req.method ?? '', req.url ?? '');
    if (!matched) return false;
    answer(deps, req, res, matched).catch((err: unknown) => {
      // answer() sends every failure as an error reply; reaching here is a bug, not a request error.
      deps.log.error('read lane failed', { err });
      res.destroy();
    });
    return true;
  };
}

/** Runs one lane request to its answer; never rejects. */
async function answer(
  deps: ReadLaneDeps,
  req: IncomingMessage,
  res: ServerResponse,
  target: LaneMatch,
): Promise<void> {
  const { route } = target;
  const started = performance.now();
  const requestId = requestIdFrom(headerOf(req, 'x-request-id'));
  let log: Logger | undefined;
  const requestLog = () => (log ??= deps.log.child({ request_id: requestId }));
  let status: number;
  try {
    const caller = await deps.guard(headerOf(req, 'authorization'), headerOf(req, 'api-key'));
    const { params } = target;
    const doc = await resolveNamed(caller, deps.collections, params.workspace, params.name!);
    const bytes = route.hasBody ? await readRequestBody(req) : undefined;
    const forwarded = await forwardRequest(
      { params, querystring: target.querystring, bytes },
      caller,
      doc,
      route,
      deps.engine,
      deps.schemas,
    );
    status = forwarded.res.status;
    send(res, status, relayedText(route, forwarded), { 'x-request-id': requestId });
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
