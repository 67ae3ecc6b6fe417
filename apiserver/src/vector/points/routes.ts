/**
 * The point, payload and index routes: each checks the envelope (tenancy,
 * ids, reserved keys, caps), forwards to the engine under the tenant-scoped
 * name, and relays the engine's answer; the engine validates the query, so
 * its filter language and options it knows pass unchanged. Every mutation
 * re-stamps the two attested payload keys from the credential. The routes
 * that only forward and relay are answered by the fast path too.
 */
import type { Context } from 'koa';
import {
  RequestIdleTimeout,
  SchemaValidationFailed,
  TooManyPoints,
  UpsertBodyTooLarge,
} from '../../errors/catalogue.js';
import type { CollectionService } from '../collections/service.js';
import { resolveCollection, resolveNamed } from '../context.js';
import type { EngineClient, SearchSender } from '../engine-client.js';
import { MAX_JSON_BODY_BYTES, readBody } from '../json-body.js';
import { POINT_GROW } from '../route-errors.js';
import { vectorRoute, type VectorRoute } from '../routing.js';
import type { SchemaService } from '../schema/service.js';
import type { StorageMeter } from '../storage/storage-meter.js';
import { forwardRequest, relayedText } from './forward.js';
import { ROUTES, type PointRoute } from './forwarding-routes.js';
import { streamUpsert, UPSERT_LIMITS, type UpsertLimits } from './upsert.js';

export type { UpsertLimits } from './upsert.js';

/** What the point routes need. */
export interface PointRouteDeps {
  collections: CollectionService;
  engine: EngineClient;
  /** How searches and queries reach the engine (a coalescer wrapping it); the engine by default. */
  searches?: SearchSender;
  schemas: SchemaService;
  storage: StorageMeter;
  upsert?: Partial<UpsertLimits>;
}

/** The path of a collection's point routes; each has a workspace twin. */
const COLLECTION_PATH = '/api/v1/collections/:name';

const ENGINE_ANSWER = "The engine's answer: {result, status, time}.";

/** Whether a route can be answered without Koa: it forwards and relays, nothing more. */
export function forwardsOnly(route: PointRoute): boolean {
  return !route.grows && !route.schemaCheck && !route.restamp;
}

/** The point, payload and index routes, upsert first, in the order they are mounted. */
export function pointRoutes(deps: PointRouteDeps): VectorRoute[] {
  return [upsertRoute(deps), ...ROUTES.map((route) => forwardingRoute(route, deps))];
}

function upsertRoute(deps: PointRouteDeps): VectorRoute {
  const { collections, engine, schemas, storage } = deps;
  const limits = { ...UPSERT_LIMITS, ...deps.upsert };
  return vectorRoute({
    method: 'put',
    path: `${COLLECTION_PATH}/points`,
    workspaceTwin: true,
    summary: 'Upsert points (streamed) {points:[{id, vector, payload?}]}',
    description:
      'The body streams in; no point is written until all of it has arrived and been checked, so a refusal (a point past the limit, a bad id, a reserved key, a strict schema violation, a malformed end) writes nothing, and update_filter and update_mode guard every point wherever they stand in the body. Bodies of more than 1000 points go to the engine in batches once checked: only the engine refusing a later batch (say a vector of the wrong size) leaves the batches before it written.',
    success: { status: 200, description: ENGINE_ANSWER },
    errors: [
      ...POINT_GROW,
      TooManyPoints,
      UpsertBodyTooLarge,
      RequestIdleTimeout,
      SchemaValidationFailed,
    ],
    maxBodyBytes: limits.maxBodyBytes,
    handler: async (ctx, caller) => {
      const doc = await resolveCollection(ctx, caller, collections);
      const check = await schemas.writeCheck(doc);
      const res = await streamUpsert(ctx, caller, doc, engine, limits, storage, check);
      relay(ctx, res.status, res.text);
      check.surfaceWarnings(ctx);
    },
  });
}

/**
 * The declaration of a forwarding route: through Koa always, and straight
 * from node:http as well when it only forwards and relays.
 */
function forwardingRoute(route: PointRoute, deps: PointRouteDeps): VectorRoute {
  const { collections, engine, schemas, storage } = deps;
  const searches = deps.searches ?? engine;
  const maxBodyBytes = route.hasBody ? MAX_JSON_BODY_BYTES : undefined;
  const declared: VectorRoute = {
    method: route.method,
    path: `${COLLECTION_PATH}${route.path}`,
    workspaceTwin: true,
    summary: route.summary,
    success: { status: 200, description: ENGINE_ANSWER },
    errors: route.errors,
    maxBodyBytes,
    handler: async (ctx, caller) => {
      const doc = await resolveCollection(ctx, caller, collections);
      if (route.grows) await storage.assertRoom(caller.account._id, caller.plan);
      const request = {
        params: ctx.params as Record<string, string>,
        querystring: ctx.querystring,
        bytes: maxBodyBytes === undefined ? undefined : await readBody(ctx, maxBodyBytes),
      };
      const forwarded = await forwardRequest(
        request,
        caller,
        doc,
        route,
        engine,
        schemas,
        searches,
      );
      relay(ctx, forwarded.res.status, relayedText(route, forwarded));
      forwarded.check?.surfaceWarnings(ctx);
    },
  };
  if (!forwardsOnly(route)) return declared;
  return {
    ...declared,
    raw: async (request, caller) => {
      const { params } = request;
      const doc = await resolveNamed(caller, collections, params.workspace, params.name!);
      const bytes = await request.body();
      const forwarded = await forwardRequest(
        { params, querystring: request.querystring, bytes },
        caller,
        doc,
        route,
        engine,
        schemas,
        searches,
      );
      return { status: forwarded.res.status, text: relayedText(route, forwarded) };
    },
  };
}

/** Sends an answer on as JSON. */
function relay(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}
