/**
 * Readers of read requests: search, scroll, retrieve and count bodies, with Qdrant's
 * fields (anything else is serde's "unknown field"), Qdrant's defaults (search and query
 * return no payload unless asked, scroll and retrieve do) and this engine's maxima.
 */
import { badRequest, EngineError, formatError, validationError } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import { parseDatetime } from '../filter/datetime.js';
import type { Filter } from '../filter/types.js';
import { parsePointId } from '../point-id.js';
import type { QuantizationSearchParams } from '../quantization/scalar.js';
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
import { expectFields, notSupported, readVariant, refuseFields } from './strict.js';

/**
 * The most points a search, query or scroll may return (`limit`). Qdrant takes any usize;
 * a stated maximum keeps a request from sizing buffers by a number like 2^64-1.
 */
export const MAX_LIMIT = 100_000;

/** The most points a search or query may skip (`offset`). */
export const MAX_OFFSET = 1_000_000;

/** The largest `params.hnsw_ef` (candidates kept while walking the graph). */
export const MAX_HNSW_EF = 100_000;

/** The most requests one batch (`searches`) may hold. */
export const MAX_BATCH = 1_000;

/** `limit` of a body: default 10, at least 1 where Qdrant's validator says so. */
export const readLimit = (body: Body, min = 1) => readCount(body, 'limit', 10, min, MAX_LIMIT);
/** `offset` of a search or query body. */
export const readOffset = (body: Body) => readCount(body, 'offset', 0, 0, MAX_OFFSET);

/** How to print the points a read returns. */
export interface Presentation {
  withPayload: PayloadSelection;
  withVector: boolean;
}

/** The presentation fields of a search-like body (payload off, vector off by default). */
export function readPresentation(body: Body, withPayload = false): Presentation {
  return {
    withPayload: readWithPayload(body, withPayload),
    withVector: readWithVector(body, false),
  };
}

const PARAMS_FIELDS = ['hnsw_ef', 'exact', 'quantization', 'indexed_only', 'acorn'];
const QUANTIZATION_FIELDS = ['ignore', 'rescore', 'oversampling'];
const ACORN_FIELDS = ['enable', 'max_selectivity'];

/** What `params` asks of a search. */
export interface SearchParams {
  exact: boolean;
  hnswEf?: number;
  /** `params.quantization`, for a collection with quantized vectors (others skip it). */
  quantization?: QuantizationSearchParams;
}

/**
 * `params.quantization` with Qdrant's defaults: not ignored, rescored (the original vectors
 * are in memory, where Qdrant's automatic choice rescores), oversampling 1 (at least 1).
 */
function readQuantization(raw: unknown): QuantizationSearchParams {
  const q = objectBody(raw, 'params.quantization');
  expectFields(q, QUANTIZATION_FIELDS, 'params.quantization');
  const oversampling = readNumber(q, 'oversampling') ?? 1;
  if (oversampling < 1) {
    throw validationError(
      `params.quantization.oversampling: value ${oversampling} invalid, must be 1.0 or larger`,
    );
  }
  return {
    ignore: readBool(q, 'ignore', false),
    rescore: readBool(q, 'rescore', true),
    oversampling,
  };
}

/** Search parameters: `exact`, `hnsw_ef` and `quantization`, and the rest checked. */
export function readParams(body: Body): SearchParams {
  const params = optional(body, 'params');
  if (params === undefined) return { exact: false };
  const p = objectBody(params, 'params');
  expectFields(p, PARAMS_FIELDS, 'params');
  const exact = readBool(p, 'exact', false);
  // Qdrant skips quantization parameters on a collection without quantization, as search does.
  const raw = optional(p, 'quantization');
  const quantization = raw === undefined ? undefined : readQuantization(raw);
  if (readBool(p, 'indexed_only', false)) throw notSupported('params.indexed_only');
  const acorn = optional(p, 'acorn');
  if (acorn !== undefined) {
    const a = objectBody(acorn, 'params.acorn');
    expectFields(a, ACORN_FIELDS, 'params.acorn');
    readNumber(a, 'max_selectivity');
    if (readBool(a, 'enable', false)) throw notSupported('params.acorn');
  }
  return {
    exact,
    ...(optional(p, 'hnsw_ef') === undefined
      ? {}
      : { hnswEf: readCount(p, 'hnsw_ef', 0, 0, MAX_HNSW_EF) }),
    ...(quantization ? { quantization } : {}),
  };
}

/** A `{name, vector}` named vector or a plain one; this engine's one vector is unnamed. */
export function unnamedVector(raw: unknown): unknown {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'vector' in raw) {
    const named = raw as Body;
    expectFields(named, ['name', 'vector'], 'vector');
    if (named.name !== '' && named.name !== undefined) {
      throw new EngineError(
        400,
        `Wrong input: Not existing vector name error: ${String(named.name)}`,
      );
    }
    return named.vector;
  }
  return raw;
}

const SEARCH_FIELDS = [
  'shard_key',
  'vector',
  'filter',
  'params',
  'limit',
  'offset',
  'with_payload',
  'with_vector',
  'with_vectors',
  'score_threshold',
];

/** A `POST .../points/search` body. */
export function readSearch(raw: unknown, collection: Collection): SearchQuery & Presentation {
  const body = objectBody(raw);
  expectFields(body, SEARCH_FIELDS);
  refuseFields(body, ['shard_key']);
  return readSearchCore(body, collection);
}

/** The fields search and search groups share. */
export function readSearchCore(body: Body, collection: Collection): SearchQuery & Presentation {
  const { size, distance } = collection.config;
  const vector = unnamedVector(body.vector);
  if (vector === undefined || vector === null) throw formatError('missing field `vector`');
  if (optional(body, 'limit') === undefined) throw formatError('missing field `limit`');
  const threshold = readNumber(body, 'score_threshold');
  return {
    vector: readVector(vector, size, distance, 'vector'),
    filter: parseFilter(body.filter),
    limit: readLimit(body),
    offset: readOffset(body),
    ...(threshold === undefined ? {} : { scoreThreshold: threshold }),
    ...readParams(body),
    ...readPresentation(body),
  };
}

const ORDER_BY_FIELDS = ['key', 'direction', 'start_from'];

/** `order_by`: a key, or `{key, direction, start_from}`. */
export function readOrderBy(raw: unknown, where = 'order_by'): OrderBy {
  if (typeof raw === 'string') return { key: raw, direction: 'asc' };
  const body = objectBody(raw, where);
  expectFields(body, ORDER_BY_FIELDS, where);
  if (typeof body.key !== 'string') throw formatError(`${where}: missing field \`key\``);
  const direction = readVariant(body, 'direction', ['asc', 'desc'] as const, 'asc', where);
  const start = optional(body, 'start_from');
  let startFrom: number | undefined;
  if (typeof start === 'number') startFrom = readNumber(body, 'start_from');
  else if (typeof start === 'string') {
    const micros = parseDatetime(start);
    if (micros === undefined) {
      throw formatError(`${where}.start_from: expected a number or datetime`);
    }
    startFrom = micros;
  } else if (start !== undefined) {
    throw formatError(`${where}.start_from: expected a number or datetime`);
  }
  return { key: body.key, direction, ...(startFrom === undefined ? {} : { startFrom }) };
}

const SCROLL_FIELDS = [
  'shard_key',
  'offset',
  'limit',
  'filter',
  'with_payload',
  'with_vector',
  'with_vectors',
  'order_by',
];

/** A `POST .../points/scroll` body. */
export function readScroll(raw: unknown) {
  const body = objectBody(raw ?? {});
  expectFields(body, SCROLL_FIELDS);
  refuseFields(body, ['shard_key']);
  const offset = optional(body, 'offset');
  const orderBy = optional(body, 'order_by');
  if (offset !== undefined && orderBy !== undefined) {
    throw badRequest('Offset is not supported when ordering by field');
  }
  return {
    filter: parseFilter(body.filter),
    limit: readLimit(body),
    ...(offset === undefined ? {} : { offset: parsePointId(offset) }),
    ...(orderBy === undefined ? {} : { orderBy: readOrderBy(orderBy) }),
    ...readPresentation(body, true),
  };
}

const RETRIEVE_FIELDS = ['shard_key', 'ids', 'with_payload', 'with_vector', 'with_vectors'];

/** A `POST .../points` (retrieve) body. */
export function readRetrieve(raw: unknown) {
  const body = objectBody(raw);
  expectFields(body, RETRIEVE_FIELDS);
  refuseFields(body, ['shard_key']);
  if (!Array.isArray(body.ids)) throw formatError('missing field `ids`');
  return { ids: body.ids.map(parsePointId), ...readPresentation(body, true) };
}

/** A `POST .../points/count` body. */
export function readCountRequest(raw: unknown): { filter?: Filter } {
  const body = objectBody(raw ?? {});
  expectFields(body, ['shard_key', 'filter', 'exact']);
  refuseFields(body, ['shard_key']);
  readBool(body, 'exact', true);
  const filter = parseFilter(body.filter);
  return filter ? { filter } : {};
}

/** The `searches` list of a batch body, at most {@link MAX_BATCH} long. */
export function readBatch(raw: unknown): unknown[] {
  const body = objectBody(raw);
  expectFields(body, ['searches']);
  const list = body.searches;
  if (!Array.isArray(list)) throw formatError('missing field `searches`');
  if (list.length > MAX_BATCH) {
    throw badRequest(`searches: ${list.length} is more than this engine's maximum of ${MAX_BATCH}`);
  }
  return list;
}
