/**
 * Readers of read requests: search, query, scroll and count bodies, with Qdrant's
 * defaults (search and query return no payload unless asked, scroll and retrieve do).
 */
import { EngineError, formatError, notFound } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import { parseDatetime } from '../filter/datetime.js';
import type { Filter } from '../filter/types.js';
import { parsePointId } from '../point-id.js';
import type { PointId } from '../point-id.js';
import type { OrderBy } from '../search/scroll.js';
import type { SearchQuery } from '../search/search.js';
import type { Collection } from '../store/collection.js';
import {
  objectBody,
  optional,
  readBool,
  readCount,
  readNumber,
  readVector,
  readWithPayload,
  readWithVector,
} from './fields.js';
import type { Body, PayloadSelection } from './fields.js';

/**
 * The most points a search, query or scroll may return (`limit`). Qdrant takes any usize;
 * a stated maximum keeps a request from sizing buffers by a number like 2^64-1.
 */
export const MAX_LIMIT = 100_000;

/** The most points a search or query may skip (`offset`). */
export const MAX_OFFSET = 1_000_000;

/** The largest `params.hnsw_ef` (candidates kept while walking the graph). */
export const MAX_HNSW_EF = 100_000;

const readLimit = (body: Body) => readCount(body, 'limit', 10, 1, MAX_LIMIT);
const readOffset = (body: Body) => readCount(body, 'offset', 0, 0, MAX_OFFSET);

/** How to print the points a read returns. */
export interface Presentation {
  withPayload: PayloadSelection;
  withVector: boolean;
}

function readParams(body: Body): { exact: boolean; hnswEf?: number } {
  const params = optional(body, 'params');
  if (params === undefined) return { exact: false };
  const p = objectBody(params, 'params');
  const exact = readBool(p, 'exact', false);
  if (optional(p, 'hnsw_ef') === undefined) return { exact };
  return { exact, hnswEf: readCount(p, 'hnsw_ef', 0, 0, MAX_HNSW_EF) };
}

/** A `POST .../points/search` body. */
export function readSearch(raw: unknown, collection: Collection): SearchQuery & Presentation {
  const body = objectBody(raw);
  const { size, distance } = collection.config;
  let vector = body.vector;
  // The named form {name, vector}; this engine's one vector is the unnamed one.
  if (
    typeof vector === 'object' &&
    vector !== null &&
    !Array.isArray(vector) &&
    'vector' in vector
  ) {
    const named = vector as { name?: unknown; vector?: unknown };
    if (named.name !== '' && named.name !== undefined) {
      throw new EngineError(
        400,
        `Wrong input: Not existing vector name error: ${String(named.name)}`,
      );
    }
    vector = named.vector;
  }
  if (vector === undefined) throw formatError('missing field `vector`');
  if (optional(body, 'limit') === undefined) throw formatError('missing field `limit`');
  const threshold = readNumber(body, 'score_threshold');
  return {
    vector: readVector(vector, size, distance, 'vector'),
    filter: parseFilter(body.filter),
    limit: readLimit(body),
    offset: readOffset(body),
    ...(threshold === undefined ? {} : { scoreThreshold: threshold }),
    ...readParams(body),
    withPayload: readWithPayload(body, false),
    withVector: readWithVector(body, false),
  };
}

/** What a `POST .../points/query` asks for. */
export type QueryPlan =
  | { kind: 'nearest'; search: SearchQuery }
  | { kind: 'order_by'; orderBy: OrderBy; filter?: Filter; limit: number; offset: number }
  | { kind: 'scroll'; filter?: Filter; limit: number; offset: number };

/** A `POST .../points/query` body. */
export function readQuery(raw: unknown, collection: Collection): QueryPlan & Presentation {
  const body = objectBody(raw);
  const presentation = {
    withPayload: readWithPayload(body, false),
    withVector: readWithVector(body, false),
  };
  if (optional(body, 'prefetch') !== undefined) {
    throw new EngineError(400, 'Bad request: `prefetch` is not supported by this engine');
  }
  const using = optional(body, 'using');
  if (using !== undefined && using !== '') {
    throw new EngineError(400, `Wrong input: Not existing vector name error: ${String(using)}`);
  }
  const filter = parseFilter(body.filter);
  const limit = readLimit(body);
  const offset = readOffset(body);
  let query = optional(body, 'query');
  if (query === undefined) return { kind: 'scroll', filter, limit, offset, ...presentation };
  if (typeof query === 'object' && !Array.isArray(query)) {
    const q = query as Body;
    if (q.order_by !== undefined) {
      return {
        kind: 'order_by',
        orderBy: readOrderBy(q.order_by),
        filter,
        limit,
        offset,
        ...presentation,
      };
    }
    if (q.nearest === undefined) {
      const kind = Object.keys(q)[0] ?? 'unknown';
      throw new EngineError(400, `Bad request: query \`${kind}\` is not supported by this engine`);
    }
    query = q.nearest;
  }
  const { size, distance } = collection.config;
  let excludeIds: Set<PointId> | undefined;
  let vector: Float32Array;
  if (Array.isArray(query) || (typeof query === 'object' && query !== null)) {
    vector = readVector(query, size, distance, 'query');
  } else {
    // A point id: search with that point's vector, leaving the point itself out.
    const id = parsePointId(query);
    const slot = collection.points.slotOf(id);
    if (slot === undefined) throw notFound(`No point with id ${id} found`);
    vector = collection.points.vectors.get(slot);
    excludeIds = new Set([id]);
  }
  const threshold = readNumber(body, 'score_threshold');
  return {
    kind: 'nearest',
    search: {
      vector,
      filter,
      limit,
      offset,
      ...(threshold === undefined ? {} : { scoreThreshold: threshold }),
      ...readParams(body),
      ...(excludeIds ? { excludeIds } : {}),
    },
    ...presentation,
  };
}

/** `order_by`: a key, or `{key, direction, start_from}`. */
export function readOrderBy(raw: unknown): OrderBy {
  if (typeof raw === 'string') return { key: raw, direction: 'asc' };
  const body = objectBody(raw, 'order_by');
  if (typeof body.key !== 'string') throw formatError('order_by: missing field `key`');
  const direction = optional(body, 'direction') ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') {
    throw formatError(`order_by.direction: unknown variant \`${String(direction)}\``);
  }
  const start = optional(body, 'start_from');
  let startFrom: number | undefined;
  if (typeof start === 'number') startFrom = readNumber(body, 'start_from');
  else if (typeof start === 'string') {
    const micros = parseDatetime(start);
    if (micros === undefined)
      throw formatError('order_by.start_from: expected a number or datetime');
    startFrom = micros;
  }
  return { key: body.key, direction, ...(startFrom === undefined ? {} : { startFrom }) };
}

/** A `POST .../points/scroll` body. */
export function readScroll(raw: unknown) {
  const body = objectBody(raw ?? {});
  const offset = optional(body, 'offset');
  const orderBy = optional(body, 'order_by');
  return {
    filter: parseFilter(body.filter),
    limit: readLimit(body),
    ...(offset === undefined ? {} : { offset: parsePointId(offset) }),
    ...(orderBy === undefined ? {} : { orderBy: readOrderBy(orderBy) }),
    withPayload: readWithPayload(body, true),
    withVector: readWithVector(body, false),
  };
}

/** A `POST .../points` (retrieve) body. */
export function readRetrieve(raw: unknown) {
  const body = objectBody(raw);
  if (!Array.isArray(body.ids)) throw formatError('missing field `ids`');
  return {
    ids: body.ids.map(parsePointId),
    withPayload: readWithPayload(body, true),
    withVector: readWithVector(body, false),
  };
}
