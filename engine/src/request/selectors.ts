/**
 * Readers of the parts of write requests: point lists, the points-or-filter selector,
 * payload index schemas.
 */
import type { Distance } from '../distance.js';
import { badRequest, formatError, EngineError } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import type { TokenizerConfig } from '../filter/text.js';
import type { IndexSchema, PayloadSchemaType } from '../index/payload-index.js';
import { parsePointId } from '../point-id.js';
import type { PointSelector, PointWrite, VectorWrite } from '../store/operations.js';
import { objectBody, optional, readBool, readCount, readPayload, readVector } from './fields.js';
import type { Body } from './fields.js';
import { expectedList, expectFields, refuseFields } from './strict.js';

/** The ids of `points` or the `filter` of a body (a filter is checked here, stored raw). */
export function readSelector(body: Body): PointSelector {
  refuseFields(body, ['shard_key']);
  const points = optional(body, 'points');
  if (points !== undefined && optional(body, 'filter') !== undefined) {
    throw badRequest('Either list of point ids or filter must be provided, not both');
  }
  if (points !== undefined) {
    if (!Array.isArray(points)) throw formatError('points: expected a list of point ids');
    return { ids: points.map(parsePointId) };
  }
  const filter = optional(body, 'filter');
  if (filter !== undefined) {
    parseFilter(filter);
    return { filter };
  }
  throw new EngineError(400, 'Bad request: Either list of point ids or filter must be provided');
}

/** The points of an upsert: `{points: [...]}` or the column form `{batch: {ids, vectors, payloads}}`. */
export function readUpsertPoints(body: Body, dim: number, distance: Distance): PointWrite[] {
  const batch = optional(body, 'batch');
  if (batch !== undefined) {
    const b = objectBody(batch, 'batch');
    expectFields(b, ['ids', 'vectors', 'payloads'], 'batch');
    const ids = b.ids;
    const vectors = b.vectors;
    const payloads = optional(b, 'payloads');
    if (!Array.isArray(ids) || !Array.isArray(vectors)) {
      throw formatError('batch: expected ids and vectors lists');
    }
    if (
      vectors.length !== ids.length ||
      (Array.isArray(payloads) && payloads.length !== ids.length)
    ) {
      throw formatError('batch: ids, vectors and payloads must have the same length');
    }
    return ids.map((id, i) => ({
      id: parsePointId(id),
      vector: readVector(vectors[i], dim, distance, `batch.vectors[${i}]`),
      payload: readPayload(
        Array.isArray(payloads) ? payloads[i] : undefined,
        `batch.payloads[${i}]`,
      ),
    }));
  }
  const points = optional(body, 'points');
  if (!Array.isArray(points)) throw formatError('missing field `points`');
  return points.map((raw, i) => {
    const p = objectBody(raw, `points[${i}]`);
    expectFields(p, ['id', 'vector', 'payload'], `points[${i}]`);
    if (p.vector === undefined) throw formatError(`points[${i}]: missing field \`vector\``);
    return {
      id: parsePointId(p.id),
      vector: readVector(p.vector, dim, distance, `points[${i}].vector`),
      payload: readPayload(p.payload, `points[${i}].payload`),
    };
  });
}

/** The points of a vectors update. */
export function readVectorUpdates(body: Body, dim: number, distance: Distance): VectorWrite[] {
  const points = optional(body, 'points');
  if (!Array.isArray(points)) throw formatError('missing field `points`');
  return points.map((raw, i) => {
    const p = objectBody(raw, `points[${i}]`);
    expectFields(p, ['id', 'vector'], `points[${i}]`);
    return {
      id: parsePointId(p.id),
      vector: readVector(p.vector, dim, distance, `points[${i}].vector`),
    };
  });
}

const SCHEMA_TYPES: PayloadSchemaType[] = [
  'keyword',
  'integer',
  'float',
  'geo',
  'text',
  'bool',
  'datetime',
  'uuid',
];

const TOKENIZERS = ['word', 'whitespace', 'prefix', 'multilingual'];

/** The longest token length a text index may set. */
const MAX_TOKEN_LEN = 1_000_000;

const UNSUPPORTED_TEXT = ['stopwords', 'stemmer', 'ascii_folding'];

/** The parameters of each index type's object form (Qdrant's `*IndexParams`). */
const INDEX_PARAMS: Record<PayloadSchemaType, string[]> = {
  keyword: ['is_tenant'],
  integer: ['lookup', 'range', 'is_principal'],
  float: ['is_principal'],
  geo: [],
  text: [
    'tokenizer',
    'min_token_len',
    'max_token_len',
    'lowercase',
    'ascii_folding',
    'phrase_matching',
    'stopwords',
    'stemmer',
  ],
  bool: [],
  datetime: ['is_principal'],
  uuid: ['is_tenant'],
};

/** `field_schema`: a type name, or an object with `type` and the type's parameters. */
export function readIndexSchema(raw: unknown): IndexSchema {
  if (typeof raw === 'string') {
    if (!SCHEMA_TYPES.includes(raw as PayloadSchemaType)) {
      throw formatError(`field_schema: unknown variant \`${raw}\`, ${expectedList(SCHEMA_TYPES)}`);
    }
    const type = raw as PayloadSchemaType;
    if (type !== 'text') return { type };
    return { type, tokenizer: { tokenizer: 'word', lowercase: true, phraseMatching: false } };
  }
  const params = objectBody(raw, 'field_schema');
  const type = params.type as PayloadSchemaType;
  if (!SCHEMA_TYPES.includes(type)) {
    throw formatError(
      `field_schema: unknown variant \`${String(params.type)}\`, ${expectedList(SCHEMA_TYPES)}`,
    );
  }
  expectFields(params, ['type', 'on_disk', 'enable_hnsw', ...INDEX_PARAMS[type]], 'field_schema');
  if (type === 'integer' && (params.lookup === false || params.range === false)) {
    throw new EngineError(
      400,
      'Bad request: integer index options `lookup` and `range` set to false are not supported by this engine',
    );
  }
  if (type !== 'text') return { type, params };
  for (const key of UNSUPPORTED_TEXT) {
    if (optional(params, key) !== undefined && params[key] !== false) {
      throw new EngineError(
        400,
        `Bad request: text index option \`${key}\` is not supported by this engine`,
      );
    }
  }
  const tokenizer = optional(params, 'tokenizer') ?? 'word';
  if (!TOKENIZERS.includes(tokenizer as string)) {
    throw formatError(
      `field_schema.tokenizer: unknown variant \`${String(tokenizer)}\`, ${expectedList(TOKENIZERS)}`,
    );
  }
  const config: TokenizerConfig = {
    tokenizer: tokenizer as TokenizerConfig['tokenizer'],
    lowercase: readBool(params, 'lowercase', true),
    phraseMatching: readBool(params, 'phrase_matching', false),
  };
  if (optional(params, 'min_token_len') !== undefined) {
    config.minTokenLen = readCount(params, 'min_token_len', 0, 0, MAX_TOKEN_LEN);
  }
  if (optional(params, 'max_token_len') !== undefined) {
    config.maxTokenLen = readCount(params, 'max_token_len', 0, 0, MAX_TOKEN_LEN);
  }
  return { type, params, tokenizer: config };
}
