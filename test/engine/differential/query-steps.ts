/**
 * Random bodies of the query API for the differential scenarios: every query variant of
 * Qdrant 1.16 the engine implements (nearest by vector or id, recommend with each
 * strategy, discover, context, order_by, sample, fusion and rrf over prefetches, nearest
 * rescoring prefetched points, nested prefetches), groups of queries and searches, facets,
 * and the request fields the engine refuses, each with the 400 it must answer.
 */
import { randomVector } from './generate-data.js';
import type { Prng } from './prng.js';

type Json = Record<string, unknown>;
type Id = number | string;

/** What the generators draw from: the scenario's collection and its random parts. */
export interface QueryContext {
  rng: Prng;
  dim: number;
  idPool: Id[];
  filter: () => Json;
  withPayload: () => unknown;
  /** Keys with a range index holding one number per point (order_by keys). */
  rangeKeys: () => string[];
  /**
   * Ids that may hold an all-zero vector. Such points tie with each other under every
   * query, and a prefetch lists a tie in arbitrary order (qdrant-edge in a different order
   * from one run to the next), which moves their fused ranks: queries with prefetches
   * leave them out.
   */
  zeroVectorIds: () => Id[];
  /** A second collection (same size and distance) a query may take vectors from. */
  lookupCollection: string;
  /** Ids of the points the collection holds now (as of the last state check). */
  liveIds: () => Id[];
  /** Keys with a payload index now. */
  indexedKeys: () => string[];
}

/** How a query's answer is compared: by score, by order value, or only by count (sample). */
export type Ranking = 'score' | 'order_value' | 'count';

/** A generated query and how to compare its answer. */
export interface GeneratedQuery {
  body: Json;
  ranking: Ranking;
}

/**
 * A random vector that is not all zeros: a zero query scores every point 0 under Cosine
 * and Dot, and the order of such a tie, which a prefetch's cut-off or a fusion's ranks
 * depend on, is arbitrary on both sides.
 */
function queryVector(ctx: QueryContext): number[] {
  for (;;) {
    const vector = randomVector(ctx.rng, ctx.dim);
    if (vector.some((x) => x !== 0)) return vector;
  }
}

/**
 * The id of a point to take a query vector from: mostly one that exists (sometimes one
 * that may not: a 404 on both sides), never one that may hold a zero vector (a query by
 * it ties every point, see {@link queryVector}).
 */
function queryId(ctx: QueryContext): Id {
  const { rng } = ctx;
  const zeros = new Set(ctx.zeroVectorIds());
  const live = ctx.liveIds().filter((id) => !zeros.has(id));
  if (live.length > 0 && rng.chance(0.9)) return rng.pick(live);
  const pool = ctx.idPool.filter((id) => !zeros.has(id));
  return rng.pick(pool);
}

/** A query vector, or the id of a stored point. */
function vectorInput(ctx: QueryContext): unknown {
  return ctx.rng.chance(0.35) ? queryId(ctx) : queryVector(ctx);
}

function pair(ctx: QueryContext): Json {
  return { positive: vectorInput(ctx), negative: vectorInput(ctx) };
}

/**
 * A scoring query. `inPrefetch` leaves out those whose ties (order_by, context's run of
 * zeros) or randomness (sample) would let a prefetch's cut-off pick different points
 * on each side, which no implementation can agree on.
 */
function scoring(ctx: QueryContext, inPrefetch: boolean): { query: unknown; ranking: Ranking } {
  const { rng } = ctx;
  const keys = ctx.rangeKeys();
  const kinds = ['vector', 'id', 'nearest', 'recommend', 'discover'];
  if (!inPrefetch) kinds.push('context', 'sample', ...(keys.length > 0 ? ['order_by'] : []));
  switch (rng.pick(kinds)) {
    case 'vector':
      return { query: queryVector(ctx), ranking: 'score' };
    case 'id':
      return { query: queryId(ctx), ranking: 'score' };
    case 'nearest':
      return { query: { nearest: vectorInput(ctx) }, ranking: 'score' };
    case 'recommend': {
      const recommend: Json = {};
      const strategy = rng.pick(['average_vector', 'best_score', 'sum_scores', undefined]);
      if (strategy) recommend.strategy = strategy;
      const positives = rng.int(strategy === 'average_vector' || !strategy ? 1 : 0, 3);
      recommend.positive = Array.from({ length: positives }, () => vectorInput(ctx));
      const negatives = rng.int(positives === 0 ? 1 : 0, 2);
      if (negatives > 0 || rng.chance(0.5)) {
        recommend.negative = Array.from({ length: negatives }, () => vectorInput(ctx));
      }
      return { query: { recommend }, ranking: 'score' };
    }
    case 'discover': {
      const pairs = Array.from({ length: rng.int(1, 3) }, () => pair(ctx));
      const context = pairs.length === 1 && rng.chance(0.5) ? pairs[0] : pairs;
      return { query: { discover: { target: vectorInput(ctx), context } }, ranking: 'score' };
    }
    case 'context': {
      const pairs = Array.from({ length: rng.int(1, 3) }, () => pair(ctx));
      return {
        query: { context: pairs.length === 1 && rng.chance(0.5) ? pairs[0] : pairs },
        ranking: 'score',
      };
    }
    case 'sample':
      return { query: { sample: 'random' }, ranking: 'count' };
    default: {
      const order: Json = { key: rng.pick(keys), direction: rng.pick(['asc', 'desc']) };
      return {
        query: { order_by: rng.chance(0.2) ? order.key : order },
        ranking: 'order_value',
      };
    }
  }
}

function prefetch(ctx: QueryContext, depth: number): Json {
  const { rng } = ctx;
  const stage: Json = { limit: rng.int(2, 12) };
  if (depth < 1 && rng.chance(0.25)) {
    stage.prefetch = [prefetch(ctx, depth + 1)];
    stage.query = queryVector(ctx);
  } else {
    stage.query = scoring(ctx, true).query;
  }
  if (rng.chance(0.3)) stage.filter = ctx.filter();
  return stage;
}

/**
 * Leaves points that may hold a zero vector out of a query. Every similarity to a zero
 * vector is a signed zero whose sign depends on the order of the kernel's additions, and
 * Qdrant orders -0 below +0 (discover's pairs, a prefetch's ties), so no two
 * implementations need agree on them; search, scroll and the state checks still meet them.
 */
function excludeZeroVectors(ctx: QueryContext, body: Json): void {
  const zeros = ctx.zeroVectorIds();
  if (zeros.length === 0) return;
  const exclusion: Json = { must_not: [{ has_id: zeros }] };
  if (body.filter) exclusion.must = [body.filter];
  body.filter = exclusion;
}

/** A random `points/query` body. */
export function randomQuery(ctx: QueryContext): GeneratedQuery {
  const { rng } = ctx;
  const body: Json = { limit: rng.int(1, 12), with_payload: ctx.withPayload() };
  if (rng.chance(0.2)) body.offset = rng.int(1, 3);
  if (rng.chance(0.4)) body.filter = ctx.filter();
  if (rng.chance(0.15)) body[rng.chance(0.5) ? 'with_vector' : 'with_vectors'] = true;
  if (rng.chance(0.1)) body.params = { exact: true };
  let ranking: Ranking = 'score';
  const shape = rng.next();
  if (shape < 0.55) {
    const chosen = scoring(ctx, false);
    body.query = chosen.query;
    ranking = chosen.ranking;
  } else if (shape < 0.6) {
    // No query: points in id order.
    ranking = 'count';
  } else {
    body.prefetch = Array.from({ length: rng.int(1, 3) }, () => prefetch(ctx, 0));
    const top = rng.next();
    if (top < 0.35) body.query = { fusion: rng.pick(['rrf', 'dbsf']) };
    else if (top < 0.55) {
      const rrf: Json = {};
      if (rng.chance(0.6)) rrf.k = rng.int(1, 60);
      if (rng.chance(0.4)) {
        rrf.weights = (body.prefetch as unknown[]).map(() => rng.pick([0.5, 1, 2, 3]));
      }
      body.query = { rrf };
    } else {
      const chosen = scoring(ctx, false);
      body.query = chosen.query;
      ranking = chosen.ranking;
    }
  }
  if (ranking === 'score' && rng.chance(0.1)) body.score_threshold = rng.fraction(-1, 1);
  // Ids then name points of the other collection, which are not left out of the results.
  if (rng.chance(0.1)) body.lookup_from = { collection: ctx.lookupCollection };
  excludeZeroVectors(ctx, body);
  return { body, ranking };
}

/** A random `points/query/groups` or `points/search/groups` body (`search` marks the latter). */
export function randomGroups(ctx: QueryContext): { body: Json; search: boolean } {
  const { rng } = ctx;
  const search = rng.chance(0.4);
  const body: Json = {
    group_by: rng.pick(['kw', 'int', 'rank', 'mixed', 'u']),
    group_size: rng.int(1, 4),
    limit: rng.int(1, 6),
    with_payload: ctx.withPayload(),
  };
  if (rng.chance(0.4)) body.filter = ctx.filter();
  if (search) body.vector = randomVector(rng, ctx.dim);
  else {
    // Prefetch-safe scorings: no ties at a cut-off, no randomness.
    body.query = scoring(ctx, true).query;
  }
  excludeZeroVectors(ctx, body);
  return { body, search };
}

/** A random facet body over the keys the scenario may have indexed. */
export function randomFacet(ctx: QueryContext): Json {
  const { rng } = ctx;
  const indexed = ctx.indexedKeys();
  const keys = ['kw', 'int', 'u', 'rank', 'flt'];
  const usable = keys.filter((k) => indexed.includes(k));
  const key = usable.length > 0 && rng.chance(0.8) ? rng.pick(usable) : rng.pick(keys);
  const body: Json = { key, limit: rng.int(1, 8) };
  if (rng.chance(0.5)) body.filter = ctx.filter();
  return body;
}

/** A request the engine must refuse with a 400, and what the message must say. */
export interface Refusal {
  method: string;
  path: string;
  body: Json;
  says: RegExp;
}

const NOT_SUPPORTED = /not supported/;
const UNKNOWN_FIELD = /unknown field `/;

/**
 * Request fields of Qdrant 1.16 this engine does not implement, and fields Qdrant does not
 * have: each must be a 400 saying so, never an answer that ignores it.
 */
export function randomRefusal(ctx: QueryContext): Refusal {
  const { rng, dim } = ctx;
  const v = () => randomVector(rng, dim);
  const cases: Refusal[] = [
    {
      method: 'POST',
      path: '/points/search',
      body: { vector: v(), limit: 3, shard_key: 'a' },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/search',
      body: { vector: v(), limit: 3, lmit: 3 },
      says: UNKNOWN_FIELD,
    },
    {
      method: 'POST',
      path: '/points/search',
      body: { vector: v(), limit: 3, params: { indexed_only: true } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/search',
      body: { vector: v(), limit: 3, params: { acorn: { enable: true } } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/search',
      body: { vector: v(), limit: 3, params: { hnsw: 5 } },
      says: UNKNOWN_FIELD,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { nearest: v(), mmr: { diversity: 0.5 } } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { formula: { sum: [1] } } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { indices: [1], values: [0.5] } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { text: 'hello', model: 'bm25' } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: v(), shard_key: 1 },
      says: NOT_SUPPORTED,
    },
    { method: 'POST', path: '/points/query', body: { query: v(), filtr: {} }, says: UNKNOWN_FIELD },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { recommend: { positive: [v()], strategy: 'best' } } },
      says: /unknown variant `best`/,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { fusion: 'rsf' }, prefetch: [{ query: v() }] },
      says: /unknown variant `rsf`/,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { query: { sample: 'first' } },
      says: /unknown variant `first`/,
    },
    {
      method: 'POST',
      path: '/points/query',
      body: { prefetch: { query: v(), offset: 2 }, query: v() },
      says: UNKNOWN_FIELD,
    },
    {
      method: 'POST',
      path: '/points/query/groups',
      body: { query: v(), group_by: 'kw', with_lookup: 'other' },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/scroll',
      body: { limit: 3, order_by: 'rank', offset: 3 },
      says: /Offset is not supported/,
    },
    {
      method: 'POST',
      path: '/points/scroll',
      body: { limit: 3, with_vector: true, with_vectors: true },
      says: /duplicate field/,
    },
    {
      method: 'POST',
      path: '/points/count',
      body: { exact: true, shard_key: 'a' },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/count',
      body: { filter: {}, exct: true },
      says: UNKNOWN_FIELD,
    },
    { method: 'POST', path: '/facet', body: { key: 'kw', shard_key: 'a' }, says: NOT_SUPPORTED },
    {
      method: 'PUT',
      path: '/points?wait=true',
      body: { points: [], update_mode: 'replace' },
      says: /unknown variant `replace`/,
    },
    {
      method: 'PUT',
      path: '/points?wait=true',
      body: { points: [{ id: 1, vector: v(), vectors: {} }] },
      says: UNKNOWN_FIELD,
    },
    {
      method: 'POST',
      path: '/points/recommend',
      body: { positive: [1], limit: 3 },
      says: NOT_SUPPORTED,
    },
    {
      method: 'POST',
      path: '/points/discover',
      body: { target: 1, context: [], limit: 3 },
      says: NOT_SUPPORTED,
    },
    {
      method: 'PATCH',
      path: '',
      body: { strict_mode_config: { enabled: true, max_query_limit: 5 } },
      says: NOT_SUPPORTED,
    },
    {
      method: 'PATCH',
      path: '',
      body: { optimizers_config: { indexing_threshold: 10 } },
      says: NOT_SUPPORTED,
    },
  ];
  return rng.pick(cases);
}

/** A short name of a query body's shape, for the suite's tally ("prefetch + rrf", "recommend best_score"). */
export function describeQuery(body: Json): string {
  const query = body.query;
  let kind: string;
  if (query === undefined) kind = 'no query';
  else if (Array.isArray(query)) kind = 'nearest vector';
  else if (typeof query !== 'object' || query === null) kind = 'nearest id';
  else {
    const q = query as Json;
    const name = Object.keys(q)[0]!;
    if (name === 'recommend')
      kind = `recommend ${String((q.recommend as Json).strategy ?? 'average_vector')}`;
    else if (name === 'fusion') kind = `fusion ${String(q.fusion)}`;
    else if (name === 'rrf') kind = (q.rrf as Json).weights ? 'rrf weighted' : 'rrf k';
    else kind = name;
  }
  return body.prefetch ? `prefetch + ${kind}` : kind;
}
