/**
 * What each point, payload and index route forwards: how its body is checked
 * and reshaped, where it goes at the engine, and what the route declares
 * (summary, errors). The upsert, which streams, is declared on its own.
 */
import type { AuthContext } from '../../auth/authenticate.js';
import {
  SchemaValidationFailed,
  StorageLimitExceeded,
  VectorValidationError,
  type ErrorClass,
} from '../../errors/catalogue.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import { POINT_GROW, POINT_READ, POINT_WRITE } from '../route-errors.js';
import { rewriteLookups } from './lookup-from.js';
import { MAX_LIMIT, MAX_OFFSET, type PagingShape } from './paging.js';
import {
  attestation,
  checkPointId,
  checkPointIds,
  cleanKeyList,
  cleanPayload,
} from './payload-keys.js';

/** A request body, parsed. */
export type Body = Record<string, unknown>;

/** One forwarding route: how to check and reshape the body, and where it goes. */
export interface PointRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The path after `/api/v1/collections/:name`. */
  path: string;
  /** What the route does, for the document. */
  summary: string;
  /** The catalogue errors it answers besides authentication's. */
  errors: readonly ErrorClass[];
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
  /** What a successful request changes: points (by id or filter) or payload indexes. */
  changes?: 'points' | 'indexes';
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
    summary: 'Retrieve points {ids, with_payload?, with_vector?}',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points',
    hasBody: true,
    prepare: prepareRetrieve,
  },
  // Not an upsert (that is PUT): it falls through to the engine's batch retrieve.
  {
    method: 'post',
    path: '/points',
    summary: 'Batch retrieve (falls through to retrieve; expects ids)',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points',
    hasBody: true,
    prepare: prepareRetrieve,
  },
  {
    method: 'post',
    path: '/points/search',
    summary: `Search {vector, limit (at most ${MAX_LIMIT}), offset? (at most ${MAX_OFFSET}), filter?, params?, ...}`,
    errors: POINT_READ,
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
    summary: `Grouped search {vector, group_by, group_size, limit (groups, at most ${MAX_LIMIT}), filter?, ...}; with_lookup is 400 (not supported)`,
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/search/groups',
    paging: 'search',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/query/groups',
    summary: `Grouped query {query?, prefetch?, filter?, group_by, group_size?, limit? (groups, at most ${MAX_LIMIT}), ...}; with_lookup is 400 (not supported)`,
    errors: POINT_READ,
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
    summary: 'Several searches {searches}; each capped as one search',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/search/batch',
    paging: 'search-batch',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/query',
    summary: `Nearest-point query; limit at most ${MAX_LIMIT} (also in each prefetch), offset at most ${MAX_OFFSET}; lookup_from names one of your collections`,
    errors: POINT_READ,
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
    summary: 'Several queries {searches}; each capped as one query',
    errors: POINT_READ,
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
    summary: `Page through points {limit? (at most ${MAX_LIMIT}), offset? (a point id), filter?, ...}`,
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/scroll',
    paging: 'scroll',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/points/count',
    summary: 'Count points {filter?, exact?}; limit is ignored',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/count',
    hasBody: true,
    prepare: (body) => void delete body.limit,
    parseWhen: ['limit'],
  },
  {
    method: 'post',
    path: '/points/delete',
    changes: 'points',
    summary: 'Delete points {points} or {filter}',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/delete',
    hasBody: true,
    prepare: checkSelector,
  },
  {
    method: 'post',
    path: '/points/payload',
    changes: 'points',
    summary: 'Merge payload {payload, points|filter}',
    errors: [...POINT_GROW, SchemaValidationFailed],
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
    changes: 'points',
    summary: 'Overwrite payload {payload, points|filter}',
    errors: [...POINT_GROW, SchemaValidationFailed],
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
    changes: 'points',
    summary: 'Delete payload keys {keys, points|filter}',
    errors: POINT_WRITE,
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
    changes: 'points',
    summary: 'Clear payloads {points|filter}',
    errors: POINT_READ,
    engineMethod: 'POST',
    enginePath: () => '/points/payload/clear',
    hasBody: true,
    prepare: checkSelector,
    restamp: selectorOf,
  },
  {
    method: 'put',
    path: '/points/vectors',
    changes: 'points',
    summary: 'Update vectors {points:[{id, vector}]}',
    errors: [...POINT_READ, StorageLimitExceeded],
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
    summary: 'Retrieve one point',
    errors: POINT_READ,
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
    changes: 'indexes',
    summary: 'Create a payload field index',
    errors: POINT_READ,
    engineMethod: 'PUT',
    enginePath: () => '/index',
    hasBody: true,
  },
  {
    method: 'post',
    path: '/index',
    changes: 'indexes',
    summary: 'Create a payload field index',
    errors: POINT_READ,
    engineMethod: 'PUT',
    enginePath: () => '/index',
    hasBody: true,
  },
  {
    method: 'delete',
    path: '/index/:field',
    changes: 'indexes',
    summary: 'Delete a payload field index',
    errors: POINT_READ,
    engineMethod: 'DELETE',
    enginePath: (params) => `/index/${encodeURIComponent(params.field!)}`,
    hasBody: false,
  },
];
