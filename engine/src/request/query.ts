/**
 * Readers of the query API's bodies (`points/query`, its batch and groups forms) into the
 * stages of query/plan.ts, strictly: Qdrant's fields and variants, and a 400 naming what
 * this engine leaves out (named, sparse and multi vectors, `mmr`, `formula`, inference
 * inputs, `shard_key`).
 */
import { badRequest, formatError, notFound, wrongInput } from '../errors.js';
import { parseFilter } from '../filter/parse.js';
import type { Filter } from '../filter/types.js';
import { parsePointId } from '../point-id.js';
import type { PointId } from '../point-id.js';
import type { ContextPair, Scoring, Stage } from '../query/plan.js';
import type { Collection } from '../store/collection.js';
import { preprocess } from '../distance.js';
import { objectBody, optional, readCount, readNumber, readRawVector } from './fields.js';
import type { Body } from './fields.js';
import {
  MAX_LIMIT,
  readLimit,
  readOffset,
  readOrderBy,
  readParams,
  readPresentation,
} from './queries.js';
import type { Presentation } from './queries.js';
import { expectFields, expectedList, notSupported, readVariant, refuseFields } from './strict.js';

/** The most prefetch stages one query may hold, however nested. */
export const MAX_PREFETCHES = 64;

/** The most example vectors (positives, negatives, context pairs) one query may hold. */
export const MAX_EXAMPLES = 1_000;

const STAGE_FIELDS = ['prefetch', 'query', 'using', 'filter', 'params', 'score_threshold'];
const PREFETCH_FIELDS = [...STAGE_FIELDS, 'limit', 'lookup_from'];
const QUERY_FIELDS = [
  'shard_key',
  ...STAGE_FIELDS,
  'limit',
  'offset',
  'with_vector',
  'with_vectors',
  'with_payload',
  'lookup_from',
];
const QUERY_VARIANTS = [
  'nearest',
  'recommend',
  'discover',
  'context',
  'order_by',
  'fusion',
  'rrf',
  'formula',
  'sample',
];

/** Finds a collection by name, for `lookup_from`. */
export type CollectionLookup = (name: string) => Collection;

/** What a reader needs: the collection queried and how to find another one. */
interface ReadContext {
  collection: Collection;
  lookup: CollectionLookup;
  prefetches: number;
  examples: number;
}

/** A whole `points/query` request. */
export type QueryRequest = Stage & Presentation & { offset: number };

/** A `POST .../points/query` body. */
export function readQuery(
  raw: unknown,
  collection: Collection,
  lookup: CollectionLookup,
): QueryRequest {
  const body = objectBody(raw ?? {});
  expectFields(body, QUERY_FIELDS);
  refuseFields(body, ['shard_key']);
  const context: ReadContext = { collection, lookup, prefetches: 0, examples: 0 };
  return {
    ...readStage(body, context, undefined, 'query'),
    offset: readOffset(body),
    ...readPresentation(body),
  };
}

/** Reads the stage of a query-like body (the root query of a groups request). */
export function readQueryStage(
  body: Body,
  collection: Collection,
  lookup: CollectionLookup,
  limit: number,
): Stage {
  const context: ReadContext = { collection, lookup, prefetches: 0, examples: 0 };
  return readStage(body, context, undefined, 'query', limit);
}

/** The fields of a `points/query/groups` body. */
export const QUERY_GROUPS_FIELDS = [
  'shard_key',
  ...STAGE_FIELDS,
  'with_vector',
  'with_vectors',
  'with_payload',
  'lookup_from',
  'group_by',
  'group_size',
  'limit',
  'with_lookup',
];

/** Both filters, as one (a prefetch runs under its parents' filters too). */
function both(outer: Filter | undefined, inner: Filter | undefined): Filter | undefined {
  if (!outer) return inner;
  if (!inner) return outer;
  return {
    must: [
      { kind: 'filter', filter: outer },
      { kind: 'filter', filter: inner },
    ],
  };
}

function readStage(
  body: Body,
  context: ReadContext,
  outerFilter: Filter | undefined,
  where: string,
  limit = readLimit(body),
): Stage {
  const using = optional(body, 'using');
  if (using !== undefined && using !== '') {
    if (typeof using !== 'string') throw formatError(`${where}.using: expected a string`);
    throw wrongInput(`Not existing vector name error: ${using}`);
  }
  const source = readLookupFrom(body, context);
  const rawPrefetch = optional(body, 'prefetch');
  const prefetchList =
    rawPrefetch === undefined ? [] : Array.isArray(rawPrefetch) ? rawPrefetch : [rawPrefetch];
  const referenced = new Set<PointId>();
  const scoring = readScoring(body.query, context, source, referenced, prefetchList.length);
  // Qdrant leaves the points a query names by id out, with a `must_not` `has_id` in the
  // stage's filter, so its prefetches leave them out too.
  const exclusion: Filter | undefined =
    referenced.size > 0 ? { mustNot: [{ kind: 'has_id', ids: referenced }] } : undefined;
  const filter = both(both(outerFilter, parseFilter(body.filter)), exclusion);
  context.prefetches += prefetchList.length;
  if (context.prefetches > MAX_PREFETCHES) {
    throw badRequest(`prefetch: more than this engine's maximum of ${MAX_PREFETCHES} stages`);
  }
  const prefetch = prefetchList.map((p, i) => {
    const inner = objectBody(p, `prefetch[${i}]`);
    expectFields(inner, PREFETCH_FIELDS, 'prefetch');
    return readStage(inner, context, filter, 'prefetch');
  });
  const threshold = readNumber(body, 'score_threshold');
  const distance = context.collection.config.distance;
  if (
    threshold !== undefined &&
    (scoring?.kind === 'recommend' ||
      scoring?.kind === 'discover' ||
      scoring?.kind === 'context') &&
    (distance === 'Euclid' || distance === 'Manhattan')
  ) {
    // Qdrant applies such a threshold to these scores in a way that follows neither the
    // scores' nor the distance's order; refused rather than answered differently.
    throw notSupported(
      `${where === 'query' ? '' : `${where}.`}score_threshold`,
      `with ${scoring.kind} on a ${distance} collection`,
    );
  }
  if (scoring === undefined && prefetch.length > 0) {
    throw badRequest('cannot have prefetches without a query');
  }
  if ((scoring?.kind === 'rrf' || scoring?.kind === 'dbsf') && prefetch.length === 0) {
    throw badRequest('Fusion queries need prefetches: `prefetch` is missing or empty');
  }
  return {
    prefetch,
    ...(scoring ? { scoring } : {}),
    ...(filter ? { filter } : {}),
    limit,
    ...(threshold === undefined ? {} : { scoreThreshold: threshold }),
    ...readParams(body),
  };
}

/** Where ids in the query take their vectors from: this collection or `lookup_from`'s. */
interface VectorSource {
  collection: Collection;
  /** Whether ids name points of the queried collection (then they are left out of results). */
  local: boolean;
}

function readLookupFrom(body: Body, context: ReadContext): VectorSource {
  const raw = optional(body, 'lookup_from');
  if (raw === undefined) return { collection: context.collection, local: true };
  const lookup = objectBody(raw, 'lookup_from');
  expectFields(lookup, ['collection', 'vector'], 'lookup_from');
  if (typeof lookup.collection !== 'string') {
    throw formatError('lookup_from: missing field `collection`');
  }
  const vector = optional(lookup, 'vector');
  if (vector !== undefined && vector !== '') {
    throw wrongInput(`Not existing vector name error: ${String(vector)}`);
  }
  const other = context.lookup(lookup.collection);
  if (other.config.size !== context.collection.config.size) {
    throw badRequest(
      `lookup_from: vectors of \`${lookup.collection}\` have ${other.config.size} dimensions, this collection's ${context.collection.config.size}`,
    );
  }
  return { collection: other, local: other === context.collection };
}

function readScoring(
  raw: unknown,
  context: ReadContext,
  source: VectorSource,
  excludeIds: Set<PointId>,
  prefetches: number,
): Scoring | undefined {
  if (raw === undefined || raw === null) return undefined;
  const input = new VectorReader(context, source, excludeIds);
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { kind: 'nearest', vector: input.read(raw, 'query') };
  }
  const q = raw as Body;
  const keys = Object.keys(q);
  const variant = keys.find((k) => QUERY_VARIANTS.includes(k));
  if (variant === undefined) {
    // Not a query variant: a vector input (sparse, or an inference object) or a typo.
    return { kind: 'nearest', vector: input.read(raw, 'query') };
  }
  const allowed =
    variant === 'nearest'
      ? ['nearest', 'mmr']
      : variant === 'formula'
        ? ['formula', 'defaults']
        : [variant];
  expectFields(q, allowed, 'query');
  switch (variant) {
    case 'nearest':
      if (optional(q, 'mmr') !== undefined) throw notSupported('query.mmr');
      return { kind: 'nearest', vector: input.read(q.nearest, 'query.nearest') };
    case 'recommend':
      return readRecommend(q.recommend, input);
    case 'discover': {
      const d = objectBody(q.discover, 'query.discover');
      expectFields(d, ['target', 'context'], 'query.discover');
      if (d.target === undefined) throw formatError('query.discover: missing field `target`');
      if (d.context === undefined) throw formatError('query.discover: missing field `context`');
      const target = input.read(d.target, 'query.discover.target');
      return { kind: 'discover', target, pairs: readPairs(d.context, input, 'query.discover') };
    }
    case 'context':
      return { kind: 'context', pairs: readPairs(q.context, input, 'query.context') };
    case 'order_by':
      return { kind: 'order_by', orderBy: readOrderBy(q.order_by, 'query.order_by') };
    case 'fusion': {
      const method = readVariant(q, 'fusion', ['rrf', 'dbsf'] as const, 'rrf', 'query');
      if (q.fusion === null) throw formatError('query.fusion: invalid type, expected a string');
      return method === 'rrf' ? { kind: 'rrf', k: 2 } : { kind: 'dbsf' };
    }
    case 'rrf':
      return readRrf(q.rrf, prefetches);
    case 'sample':
      readVariant(q, 'sample', ['random'] as const, 'random', 'query');
      if (q.sample === null) throw formatError('query.sample: invalid type, expected a string');
      return { kind: 'sample' };
    default:
      throw notSupported('query.formula');
  }
}

function readRrf(raw: unknown, prefetches: number): Scoring {
  const body = objectBody(raw, 'query.rrf');
  expectFields(body, ['k', 'weights'], 'query.rrf');
  const k = readCount(body, 'k', 2, 1, MAX_LIMIT);
  const weights = optional(body, 'weights');
  if (weights === undefined) return { kind: 'rrf', k };
  if (!Array.isArray(weights)) throw formatError('query.rrf.weights: expected a list of numbers');
  const list = weights.map((w, i) => {
    if (typeof w !== 'number' || !Number.isFinite(w)) {
      throw formatError(`query.rrf.weights[${i}]: expected a finite number`);
    }
    if (w <= 0) throw badRequest(`query.rrf.weights[${i}]: must be greater than 0`);
    return w;
  });
  if (list.length !== prefetches) {
    throw badRequest(
      `query.rrf.weights: ${list.length} weights for ${prefetches} prefetches; give one per prefetch`,
    );
  }
  return { kind: 'rrf', k, weights: list };
}

function readRecommend(raw: unknown, input: VectorReader): Scoring {
  const body = objectBody(raw, 'query.recommend');
  expectFields(body, ['positive', 'negative', 'strategy'], 'query.recommend');
  const list = (key: string) => {
    const value = optional(body, key);
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw formatError(`query.recommend.${key}: expected a list`);
    return value;
  };
  const positive = list('positive');
  const negative = list('negative');
  const strategy = readVariant(
    body,
    'strategy',
    ['average_vector', 'best_score', 'sum_scores'] as const,
    'average_vector',
    'query.recommend',
  );
  if (strategy === 'average_vector') {
    if (positive.length === 0) {
      throw badRequest('At least one positive vector ID required with this strategy');
    }
    const pos = positive.map((v, i) => input.readRaw(v, `query.recommend.positive[${i}]`));
    const neg = negative.map((v, i) => input.readRaw(v, `query.recommend.negative[${i}]`));
    return { kind: 'nearest', vector: averageVector(pos, neg, input.distance) };
  }
  if (positive.length === 0 && negative.length === 0) {
    throw badRequest('At least one positive or negative example is required');
  }
  return {
    kind: 'recommend',
    strategy,
    positives: positive.map((v, i) => input.read(v, `query.recommend.positive[${i}]`)),
    negatives: negative.map((v, i) => input.read(v, `query.recommend.negative[${i}]`)),
  };
}

/**
 * Qdrant's average-vector recommendation: the mean of the positives pushed away from the
 * mean of the negatives, `avg(pos) + (avg(pos) - avg(neg))`, then preprocessed as a query.
 */
function averageVector(
  positives: Float32Array[],
  negatives: Float32Array[],
  distance: Collection['config']['distance'],
): Float32Array {
  const mean = (list: Float32Array[]) => {
    const out = new Float32Array(list[0]!.length);
    for (const v of list) for (let i = 0; i < out.length; i++) out[i] = out[i]! + v[i]!;
    for (let i = 0; i < out.length; i++) out[i] = out[i]! / list.length;
    return out;
  };
  const pos = mean(positives);
  if (negatives.length === 0) return preprocess(distance, pos);
  const neg = mean(negatives);
  const out = new Float32Array(pos.length);
  for (let i = 0; i < out.length; i++) out[i] = pos[i]! + pos[i]! - neg[i]!;
  return preprocess(distance, out);
}

function readPairs(raw: unknown, input: VectorReader, where: string): ContextPair[] {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((p, i) => {
    const pair = objectBody(p, `${where}.context[${i}]`);
    expectFields(pair, ['positive', 'negative'], `${where}.context[${i}]`);
    if (pair.positive === undefined || pair.negative === undefined) {
      throw formatError(`${where}.context[${i}]: missing field \`positive\` or \`negative\``);
    }
    return {
      positive: input.read(pair.positive, `${where}.context[${i}].positive`),
      negative: input.read(pair.negative, `${where}.context[${i}].negative`),
    };
  });
}

/** Reads the vector inputs of one query: dense vectors, or ids of stored points. */
class VectorReader {
  constructor(
    private readonly context: ReadContext,
    private readonly source: VectorSource,
    private readonly excludeIds: Set<PointId>,
  ) {}

  get distance() {
    return this.context.collection.config.distance;
  }

  /** A vector input, preprocessed as a query. */
  read(raw: unknown, where: string): Float32Array {
    return preprocess(this.distance, this.readRaw(raw, where));
  }

  /** A vector input as given (a stored point's vector as stored). */
  readRaw(raw: unknown, where: string): Float32Array {
    this.context.examples++;
    if (this.context.examples > MAX_EXAMPLES) {
      throw badRequest(`query: more than this engine's maximum of ${MAX_EXAMPLES} vectors`);
    }
    const { size } = this.context.collection.config;
    if (typeof raw === 'number' || typeof raw === 'string') return this.stored(raw);
    if (Array.isArray(raw)) {
      if (raw.length > 0 && Array.isArray(raw[0])) {
        throw notSupported(`${where} (a multivector)`, 'one dense vector per point');
      }
      return readRawVector(raw, size, where);
    }
    if (typeof raw === 'object' && raw !== null) {
      const keys = Object.keys(raw);
      if (keys.includes('indices') || keys.includes('values')) {
        throw notSupported(`${where} (a sparse vector)`, 'one dense vector per point');
      }
      if (keys.some((k) => ['text', 'image', 'object', 'model', 'document'].includes(k))) {
        throw notSupported(`${where} (an inference input)`, 'send the vector itself');
      }
      if (keys.length === 1 && keys[0] === '') return readRawVector(raw, size, where);
    }
    throw formatError(
      `${where}: data did not match any variant of untagged enum VectorInput, ${expectedList(['a vector', 'a point id'])}`,
    );
  }

  private stored(raw: number | string): Float32Array {
    const id = parsePointId(raw);
    const { collection, local } = this.source;
    const slot = collection.points.slotOf(id);
    if (slot === undefined) throw notFound(`No point with id ${id} found`);
    if (local) this.excludeIds.add(id);
    return collection.points.vectors.get(slot).slice();
  }
}
