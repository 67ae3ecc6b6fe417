/**
 * The point, payload and index routes: each checks the envelope (tenancy,
 * ids, reserved keys, caps), forwards to the engine under the tenant-scoped
 * name, and relays the engine's answer; the engine validates the query, so
 * its filter language and options it knows pass unchanged. Every mutation
 * re-stamps the two attested payload keys from the credential.
 */
import type { Context } from 'koa';
import type { AuthContext } from '../../auth/authenticate.js';
import { VectorValidationError } from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { CollectionService } from '../collections/service.js';
import { authed, resolveCollection, type VectorRouter } from '../context.js';
import type { EngineClient, EngineResponse } from '../engine-client.js';
import { engineFailure } from '../engine-errors.js';
import type { VectorGuard } from '../guards.js';
import { looksLikeObject, parseJsonObject, readBody } from '../json-body.js';
import {
  attestation,
  attestedKeysSelected,
  checkPointId,
  checkPointIds,
  cleanKeyList,
  cleanPayload,
  fillAttestedKeys,
  mayHoldInternalKeys,
  mayLackAttestedKeys,
  stripInternalKeys,
} from './payload-keys.js';
import { BACKSLASH } from '../json-members.js';
import { checkPaging, pagingMayExceed, type PagingShape } from './paging.js';
import type { StorageMeter } from '../storage/storage-meter.js';
import type { WriteCheck } from '../schema/enforcement.js';
import type { SchemaService } from '../schema/service.js';
import { rewriteLookups } from './lookup-from.js';
import { streamUpsert, UPSERT_LIMITS, type UpsertLimits } from './upsert.js';

export type { UpsertLimits } from './upsert.js';

/** What the point routes need. */
export interface PointRouteDeps {
  guard: VectorGuard;
  collections: CollectionService;
  engine: EngineClient;
  schemas: SchemaService;
  storage: StorageMeter;
  upsert?: Partial<UpsertLimits>;
}

type Body = Record<string, unknown>;

/** One forwarding route: how to check and reshape the body, and where it goes. */
export interface PointRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  engineMethod: string;
  /** The engine path after `/collections/{engine name}`, from the route's parameters. */
  enginePath: (params: Record<string, string>) => string;
  /** Whether the request carries a JSON body. */
  hasBody: boolean;
  /**
   * The engine's batch route for this one (after the engine name): concurrent
   * requests are joined into it (see search-coalescer.ts).
   */
  batchPath?: string;
  /** Checks and rewrites the body in place. */
  prepare?: (body: Body, caller: AuthContext, collection: VectorCollectionDoc) => void;
  /**
   * With `prepare`: the body is forwarded as sent, unparsed, unless it
   * contains one of these texts or a backslash (then it is parsed and
   * prepared: a member name spelled with escapes, `"lookup\u005ffrom"`, is
   * the same name once parsed). Without it, a route with `prepare` always
   * parses.
   */
  parseWhen?: readonly string[];
  /** Where the body's `limit` and `offset` are, which are capped (see paging.ts). */
  paging?: PagingShape;
  /** After a successful mutation: the selector whose points get re-stamped separately. */
  restamp?: (body: Body) => Body | null;
  /** A payload write whose result is checked against the collection's payload schema. */
  schemaCheck?: 'merge' | 'overwrite';
  /** Whether the route adds data, so the plan's storage cap applies. */
  grows?: boolean;
}

/** `points` (ids) or `filter` of a mutation, for the follow-up stamp. */
function selectorOf(body: Body): Body | null {
  if (Array.isArray(body.points)) {
    const first = body.points[0];
    // `PUT /points/vectors` lists point objects; the others list ids.
    const ids =
      typeof first === 'object' && first !== null
        ? body.points.map((p) => (p as Body).id)
        : body.points;
    return { points: ids };
  }
  if (body.filter !== undefined) return { filter: body.filter };
  return null;
}

function checkSelector(body: Body): void {
  if (body.points !== undefined) checkPointIds(body.points, 'points');
}

/** `lookup_from` names the caller's collections in the scope of the one the path names. */
function rewriteLookupsFor(body: Body, _caller: AuthContext, doc: VectorCollectionDoc): void {
  rewriteLookups(body, {
    accountId: doc.accountId,
    environment: doc.environment,
    workspace: doc.workspace,
  });
}

/** The read defaults of retrieve: the plural flag is not read. */
function prepareRetrieve(body: Body): void {
  checkPointIds(body.ids, 'ids');
  delete body.with_vectors;
  body.with_payload ??= true;
  body.with_vector ??= false;
}

/** Every forwarding route (the upsert, which streams, is mounted on its own). */
export const ROUTES: readonly PointRoute[] = [
  {
    method: 'post',
    path: '/points/retrieve',
    engineMethod: 'POST',
    enginePath: () => '/points',
    hasBody: true,
    prepare: prepareRetrieve,
  },
  // Not an upsert (that is PUT): it falls through to the engine's batch retrieve.
  {
    method: 'post',
    path: '/points',
    engineMethod: 'POST',
    enginePath: () => '/points',
    hasBody: true,
    prepare: prepareRetrieve,
  },
  {
    method: 'post',
    path: '/points/search',
    engineMethod: 'POST',
    enginePath: () => '/points/search',
    paging: 'search',
    hasBody: true,
    batchPath: '/points/search/batch',
    prepare: (body) => void delete body.with_vectors,
    parseWhen: ['with_vectors'],
  },
  // Grouped reads: the engine groups; `limit` counts groups and is capped like a search's.
  {
    method: 'post',
    path: '/points/search/groups',
    engineMethod: 'POST',
    enginePath: () => '/points/search/groups',
    paging: 'search',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/query/groups',
    engineMethod: 'POST',
    enginePath: () => '/points/query/groups',
    paging: 'query',
    hasBody: true,
    prepare: rewriteLookupsFor,
    parseWhen: ['lookup_from'],
  },
  {
    method: 'post',
    path: '/points/search/batch',
    engineMethod: 'POST',
    enginePath: () => '/points/search/batch',
    paging: 'search-batch',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/query',
    engineMethod: 'POST',
    enginePath: () => '/points/query',
    paging: 'query',
    hasBody: true,
    batchPath: '/points/query/batch',
    prepare: rewriteLookupsFor,
    parseWhen: ['lookup_from'],
  },
  {
    method: 'post',
    path: '/points/query/batch',
    engineMethod: 'POST',
    enginePath: () => '/points/query/batch',
    paging: 'query-batch',
    hasBody: true,
    prepare: rewriteLookupsFor,
    parseWhen: ['lookup_from'],
  },
  {
    method: 'post',
    path: '/points/scroll',
    engineMethod: 'POST',
    enginePath: () => '/points/scroll',
    paging: 'scroll',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/count',
    engineMethod: 'POST',
    enginePath: () => '/points/count',
    hasBody: true,
    prepare: (body) => void delete body.limit,
    parseWhen: ['limit'],
  },
  {
    method: 'post',
    path: '/points/delete',
    engineMethod: 'POST',
    enginePath: () => '/points/delete',
    hasBody: true,
    prepare: checkSelector,
  },
  {
    method: 'post',
    path: '/points/payload',
    engineMethod: 'POST',
    grows: true,
    schemaCheck: 'merge',
    enginePath: () => '/points/payload',
    hasBody: true,
    prepare: (body, caller) => {
      checkSelector(body);
      const payload = cleanPayload(body.payload, 'payload');
      // A nested `key` would put the stamp under that key: stamp separately then.
      body.payload = body.key === undefined ? { ...payload, ...attestation(caller) } : payload;
    },
    restamp: (body) => (body.key === undefined ? null : selectorOf(body)),
  },
  {
    method: 'put',
    path: '/points/payload',
    engineMethod: 'PUT',
    grows: true,
    schemaCheck: 'overwrite',
    enginePath: () => '/points/payload',
    hasBody: true,
    prepare: (body, caller) => {
      checkSelector(body);
      body.payload = { ...cleanPayload(body.payload, 'payload'), ...attestation(caller) };
    },
  },
  {
    method: 'post',
    path: '/points/payload/delete',
    engineMethod: 'POST',
    enginePath: () => '/points/payload/delete',
    hasBody: true,
    prepare: (body) => {
      checkSelector(body);
      body.keys = cleanKeyList(body.keys, 'keys');
    },
    restamp: selectorOf,
  },
  {
    method: 'post',
    path: '/points/payload/clear',
    engineMethod: 'POST',
    enginePath: () => '/points/payload/clear',
    hasBody: true,
    prepare: checkSelector,
    restamp: selectorOf,
  },
  {
    method: 'put',
    path: '/points/vectors',
    engineMethod: 'PUT',
    grows: true,
    enginePath: () => '/points/vectors',
    hasBody: true,
    prepare: (body) => {
      if (!Array.isArray(body.points)) {
        throw new VectorValidationError('points must be an array of {id, vector}.', {
          fields: { field: 'points' },
        });
      }
      body.points.forEach((p, i) => checkPointId((p as Body | null)?.id, `points[${i}].id`));
    },
    restamp: selectorOf,
  },
  {
    method: 'get',
    path: '/points/:id',
    engineMethod: 'GET',
    enginePath: (params) => {
      const raw = params.id!;
      const id = /^\d+$/.test(raw) ? Number(raw) : raw;
      checkPointId(id, 'id');
      return `/points/${encodeURIComponent(raw)}`;
    },
    hasBody: false,
  },
  {
    method: 'put',
    path: '/index',
    engineMethod: 'PUT',
    enginePath: () => '/index',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/index',
    engineMethod: 'PUT',
    enginePath: () => '/index',
    hasBody: true,
  },
  {
    method: 'delete',
    path: '/index/:field',
    engineMethod: 'DELETE',
    enginePath: (params) => `/index/${encodeURIComponent(params.field!)}`,
    hasBody: false,
  },
];

/** The collection-scoped prefix and its workspace twin. */
export const PREFIXES = [
  '/api/v1/collections/:name',
  '/api/v1/workspaces/:workspace/collections/:name',
];

/** Mounts the point, payload and index routes (and their workspace twins). */
export function mountPointRoutes(router: VectorRouter, deps: PointRouteDeps): void {
  const { guard, collections, engine, storage } = deps;
  const { schemas } = deps;
  const limits = { ...UPSERT_LIMITS, ...deps.upsert };
  for (const prefix of PREFIXES) {
    router.put(
      `${prefix}/points`,
      authed(guard, async (ctx, caller) => {
        const doc = await resolveCollection(ctx, caller, collections);
        const check = await schemas.writeCheck(doc);
        const res = await streamUpsert(ctx, caller, doc, engine, limits, storage, check);
        relay(ctx, res.status, res.text);
        check.surfaceWarnings(ctx);
      }),
    );
    for (const route of ROUTES) {
      router[route.method](
        `${prefix}${route.path}`,
        authed(guard, async (ctx, caller) => {
          const doc = await resolveCollection(ctx, caller, collections);
          if (route.grows) await storage.assertRoom(caller.account._id, caller.plan);
          await forward(ctx, caller, doc, route, engine, schemas);
        }),
      );
    }
  }
}

/**
 * Whether a body can go to the engine as it came: the route changes nothing
 * in it (or nothing this body contains), and it is an object if it is JSON
 * at all (the engine's refusal of malformed JSON maps to MALFORMED_JSON).
 * Parsing and re-serialising a search's vector costs more than the rest of
 * the gateway's own work on it.
 */
function forwardsAsSent(route: PointRoute, bytes: Buffer): boolean {
  if (route.schemaCheck || route.restamp) return false;
  if (route.prepare && !route.parseWhen) return false;
  if (!looksLikeObject(bytes)) return false;
  if (!route.parseWhen) return true;
  // The rewrite is decided on the parsed document, never on how the bytes spell a name.
  if (bytes.includes(BACKSLASH)) return false;
  return !route.parseWhen.some((text) => bytes.includes(text));
}

/** A forwarding route's request, however it arrived: path parameters, query string, body. */
export interface ForwardRequest {
  params: Record<string, string>;
  querystring: string;
  /** The body's bytes, read by the caller when the route has one. */
  bytes: Buffer | undefined;
}

/** The engine's answer to a forwarded request and the payload schema check of a write. */
export interface Forwarded {
  res: EngineResponse;
  check: WriteCheck | null;
  /** The body as forwarded: parsed when the gateway parsed it, else its bytes. */
  sent: Body | Buffer | undefined;
}

async function forward(
  ctx: Context,
  caller: AuthContext,
  doc: VectorCollectionDoc,
  route: PointRoute,
  engine: EngineClient,
  schemas: SchemaService,
): Promise<void> {
  const request: ForwardRequest = {
    params: ctx.params as Record<string, string>,
    querystring: ctx.querystring,
    bytes: route.hasBody ? await readBody(ctx) : undefined,
  };
  const forwarded = await forwardRequest(request, caller, doc, route, engine, schemas);
  relay(ctx, forwarded.res.status, relayedText(route, forwarded));
  forwarded.check?.surfaceWarnings(ctx);
}

/**
 * Checks and reshapes one request of `route`, sends it to the engine under
 * the tenant's engine name (then re-stamps, for the routes that must), and
 * returns the engine's answer; an engine error is thrown as the contract's.
 */
export async function forwardRequest(
  request: ForwardRequest,
  caller: AuthContext,
  doc: VectorCollectionDoc,
  route: PointRoute,
  engine: EngineClient,
  schemas: SchemaService,
): Promise<Forwarded> {
  const base = `/collections/${doc.engineName}`;
  const path = `${base}${route.enginePath(request.params)}`;
  let body: Body | undefined;
  let asSent: Buffer | undefined;
  const bytes = request.bytes;
  if (bytes) {
    if (forwardsAsSent(route, bytes)) asSent = bytes;
    else {
      body = parseJsonObject(bytes);
      route.prepare?.(body, caller, doc);
    }
  }
  if (route.paging) {
    if (body) checkPaging(route.paging, body);
    else if (asSent && pagingMayExceed(asSent)) checkPaging(route.paging, parseJsonObject(asSent));
  }
  const check =
    body && route.schemaCheck
      ? await schemas.payloadWriteCheck(doc, { ...body, kind: route.schemaCheck })
      : null;
  const { querystring } = request;
  const res =
    route.batchPath && (asSent ?? body)
      ? await engine.search(
          path,
          `${base}${route.batchPath}`,
          asSent ?? Buffer.from(JSON.stringify(body)),
          querystring,
        )
      : await engine.send(route.engineMethod, path, asSent ?? body, querystring);
  if (res.status >= 400) throw engineFailure(res);
  const selector = body && route.restamp?.(body);
  if (selector) {
    const stamped = await engine.send(
      'POST',
      `${base}/points/payload`,
      { payload: attestation(caller), ...selector },
      'wait=true',
    );
    if (stamped.status >= 400) throw engineFailure(stamped);
  }
  return { res, check, sent: body ?? asSent };
}

/** Whether the route's answer holds points, whose internal payload keys are stripped. */
export function isRead(route: PointRoute): boolean {
  return route.engineMethod === 'GET' || route.engineMethod === 'POST';
}

/** Sends an answer on as JSON. */
function relay(ctx: Context, status: number, text: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = text;
}

/**
 * The engine's answer as relayed. Reads are scanned first: internal
 * `__svc_` keys are removed, and the attested pair is put back (null) into
 * payloads stored without it (see {@link mayLackAttestedKeys}) where the
 * read's `with_payload` selected it. The common case (neither) relays the
 * engine's bytes without parsing them.
 */
export function relayedText(route: PointRoute, { res, sent }: Forwarded): string {
  if (!isRead(route) || res.status >= 300) return res.text;
  const strip = mayHoldInternalKeys(res.text);
  const fill = mayLackAttestedKeys(res.text);
  if (!strip && !fill) return res.text;
  const parsed = JSON.parse(res.text) as Body;
  if (strip) stripInternalKeys(parsed);
  if (fill)
    fillSelected(
      parsed.result,
      sent === undefined || Buffer.isBuffer(sent) ? parseSent(sent) : sent,
    );
  return JSON.stringify(parsed);
}

function parseSent(bytes: Buffer | undefined): Body {
  return bytes === undefined ? {} : parseJsonObject(bytes);
}

/** {@link fillAttestedKeys} with each search's own selector in a batch, the body's otherwise. */
function fillSelected(result: unknown, sent: Body): void {
  const searches = sent.searches;
  if (Array.isArray(searches) && Array.isArray(result)) {
    result.forEach((answer, i) => {
      const search = searches[i] as Body | undefined;
      fillAttestedKeys(answer, attestedKeysSelected(search?.with_payload));
    });
    return;
  }
  fillAttestedKeys(result, attestedKeysSelected(sent.with_payload));
}
