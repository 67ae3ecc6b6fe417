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
import type { Engines } from '../engines.js';
import type { MoveGate } from '../collections/move-gate.js';
import type { PointId } from '../schema/scan.js';
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
  /** Each region's engine, and how searches reach it. */
  engines: Engines;
  /** Holds and logs writes of collections being moved between regions (none: nothing moves). */
  moves?: MoveGate;
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
  const { collections, engines, moves, schemas, storage } = deps;
  const limits = { ...UPSERT_LIMITS, ...deps.upsert };
  return vectorRoute({
    method: 'put',
    path: `${COLLECTION_PATH}/points`,
    workspaceTwin: true,
    summary: 'Upsert points (streamed) {points:[{id, vector, payload?}]}',
    description:
      'The body streams in; no point is written until all of it has arrived and been checked, so a refusal writes nothing: a point past the limit, a bad id, a reserved key, a strict schema violation, a malformed end, and a point the engine would refuse, checked against the collection: a member other than id, vector and payload, no vector, a vector of the wrong dimension (400 BAD_REQUEST "Wrong input: Vector dimension error: expected dim: 4, got 3", with field naming the point, points[2399].vector), a named or sparse vector (the collection has one unnamed dense vector: "Wrong input: Not existing vector name error: <name>"), a component that is not a number or not finite as a 32-bit float, an id past 2^53-1. update_filter and update_mode guard every point wherever they stand in the body. ' +
      "Once read, the whole body's estimated size (4 bytes a dimension plus the payload's JSON, every point counted as new) must fit in the plan's storage left, else 429 STORAGE_LIMIT_EXCEEDED and nothing is written. " +
      'Bodies of more than 1000 points (or 4 MB) then go to the engine in batches, in body order. Should the engine fail a batch all the same, for a reason the gateway cannot see beforehand (the engine unavailable or timing out: 502 PROXY_ERROR, 503, 504 GATEWAY_TIMEOUT; out of disk; JSON that does not parse inside a vector or a payload, which the gateway forwards unparsed: 400 MALFORMED_JSON; the collection deleted meanwhile), the error carries details.points_written: that many points, the first ones of the body, were written and the rest were not applied, except that after a 5xx the failed batch itself may have been applied whole (its answer may have been lost); after a 4xx it was not (the engine applies a batch whole or not at all). Upsert is idempotent: resending the whole request is safe.',
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
      const resolved = await resolveCollection(ctx, caller, collections);
      const doc = moves ? await moves.forWrite(resolved) : resolved;
      const check = await schemas.writeCheck(doc);
      // A collection being moved logs the ids written, applied or not.
      const ids: PointId[] | undefined = doc.move ? [] : undefined;
      let res;
      try {
        const { engine } = engines.forDoc(doc);
        res = await streamUpsert(ctx, caller, doc, engine, limits, storage, check, ids);
      } finally {
        if (ids && moves) await moves.record(doc, { ids });
      }
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
  const { collections, engines, moves, schemas, storage } = deps;
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
      const forwarded = await forwardRequest(request, caller, doc, route, engines, schemas, moves);
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
        engines,
        schemas,
        moves,
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
