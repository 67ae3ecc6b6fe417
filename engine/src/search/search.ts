/**
 * Nearest-neighbour search over a collection. Exact search scores every candidate and is
 * the correctness baseline; the HNSW graph answers when the collection has one, unless
 * `exact` is asked for or the filter is so selective that scoring its matches directly
 * is cheaper and exact (Qdrant makes the same choice with its full-scan threshold).
 */
import { passesThreshold, reportedScore } from '../distance.js';
import type { Filter } from '../filter/types.js';
import { planFilter } from '../index/filter-plan.js';
import type { FilterPlan } from '../index/filter-plan.js';
import type { PointId } from '../point-id.js';
import type { QuantizationSearchParams } from '../quantization/scalar.js';
import type { Collection } from '../store/collection.js';
import { GATHER_MAX } from '../store/vector-arena.js';
import type { VectorSpace } from '../store/vector-arena.js';
import { TopK } from './top-k.js';

/** Share of points a filter passes below which the graph walk steps over rejected nodes. */
const TWO_HOP_BELOW = 0.3;

/**
 * Candidates scored per gather call, by dimension. The gather reads the first kilobyte of
 * every listed vector ahead of scoring; past 256 floats the scoring then streams the rest
 * of each vector, and a thousand of them read ahead are out of cache before they are
 * scored: at 768-d 64 a call scored a 1% filter's 1000 candidates 10-15% faster than
 * 1024, while at 128-d 1024 was up to a sixth faster than 64 on 10,000 (the calls' own
 * cost; bench/README.md).
 */
const candidateChunk = (dim: number) => (dim > 256 ? 64 : GATHER_MAX);

/** Qdrant's quantization defaults: use the codes, rescore, no oversampling. */
const DEFAULT_QUANTIZATION: QuantizationSearchParams = {
  ignore: false,
  rescore: true,
  oversampling: 1,
};

/** A parsed search. */
export interface SearchQuery {
  /** The query vector, preprocessed like stored ones. */
  vector: Float32Array;
  filter?: Filter;
  limit: number;
  offset: number;
  scoreThreshold?: number;
  exact: boolean;
  hnswEf?: number;
  /** `params.quantization`; Qdrant's defaults (walk the codes, rescore) when absent. */
  quantization?: QuantizationSearchParams;
  /** Points the query referenced by id, which Qdrant leaves out of the results. */
  excludeIds?: Set<PointId>;
}

/** A hit: a live slot and the score Qdrant would report. */
export interface Hit {
  slot: number;
  score: number;
}

/**
 * Points a filter may pass and still be searched by scoring its matches directly: Qdrant's
 * `full_scan_threshold` is in kilobytes of vectors, so the count depends on the dimension.
 */
export function fullScanPoints(collection: Collection): number {
  const { config } = collection;
  return Math.floor((config.hnsw.fullScanThreshold * 1024) / (config.size * 4));
}

/**
 * Whether a slot may be a hit: live, not left out by id, passing the filter's plan; as
 * few checks as the query needs, since the graph walk asks for every node it meets. Made
 * here and returned unnamed: tsx, which runs the engine, keeps function names, and names a
 * closure bound to a `const` with an Object.defineProperty call on every search.
 */
function acceptor(
  collection: Collection,
  exclude: Set<PointId> | undefined,
  plan: FilterPlan | undefined,
): (slot: number) => boolean {
  const { alive, ids } = collection.points;
  if (!exclude && !plan) return (slot) => alive[slot] === 1;
  return (slot) =>
    alive[slot] === 1 && (!exclude || !exclude.has(ids[slot]!)) && (!plan || plan.passes(slot));
}

/** Searches a collection; hits best first, after `offset`. */
export function search(collection: Collection, query: SearchQuery): Hit[] {
  const { points, config } = collection;
  const k = query.offset + query.limit;
  if (k === 0) return [];
  const filter = query.filter;
  const index = collection.vectorIndex;
  const threshold = fullScanPoints(collection);
  const plan = filter ? planFilter(collection, filter, threshold) : undefined;
  const accept = acceptor(collection, query.excludeIds, plan);

  let found: { score: number; slot: number }[];
  const q = points.vectors.placeQuery(query.vector);
  if (!index.ready || query.exact || (plan && plan.matches <= threshold)) {
    found = exactSearch(collection, q, k, accept, plan?.candidates);
  } else {
    const ef = Math.max(query.hnswEf ?? config.hnsw.efConstruct, k);
    // Below this share of points passing, the walk steps over rejected ones (ACORN-1).
    const twoHop = plan !== undefined && plan.matches < TWO_HOP_BELOW * points.liveCount;
    // Only a quantized collection reads the quantization params (Qdrant skips them elsewhere).
    const quantized = config.quantization && {
      vector: query.vector,
      params: query.quantization ?? DEFAULT_QUANTIZATION,
    };
    // Without ids to leave out, the walk reads the plan's known answers directly.
    const verdicts = query.excludeIds ? undefined : plan?.verdicts();
    found = index.search(q, k, ef, accept, twoHop, quantized, verdicts);
  }

  const hits: Hit[] = [];
  for (const { score, slot } of found) {
    const reported = reportedScore(config.distance, score);
    if (query.scoreThreshold !== undefined) {
      if (!passesThreshold(config.distance, reported, query.scoreThreshold)) break;
    }
    hits.push({ slot, score: reported });
  }
  return hits.slice(query.offset);
}

/**
 * Scores every accepted slot (or every accepted candidate) against the query at byte
 * offset `q` and keeps the best `k`. A full scan scores slots a chunk at a time in one
 * SIMD kernel call, a long one on two threads (VectorArena.scanAll).
 */
export function exactSearch(
  collection: Collection,
  q: number,
  k: number,
  accept: (slot: number) => boolean,
  candidates?: Int32Array,
): { score: number; slot: number }[] {
  const arena = collection.points.vectors;
  const top = new TopK(k);
  if (candidates) {
    // Scored a chunk at a time in one kernel call; the filter is checked only on a slot
    // that would enter the top k, as in the full scan below. An indexed loop: a typed
    // array's iterator costs about a tenth of a 10,000-candidate search.
    const { gatherIds } = arena.space;
    const chunk = candidateChunk(arena.space.dim);
    let count = 0;
    for (let i = 0; i < candidates.length; i++) {
      gatherIds[count++] = candidates[i]!;
      if (count === chunk) {
        scoreGathered(arena.space, q, count, top, accept);
        count = 0;
      }
    }
    if (count > 0) scoreGathered(arena.space, q, count, top, accept);
    return top.sorted();
  }
  // Slot by slot in order, whichever thread scored them; a closure made once per search.
  arena.scanAll(q, collection.points.slotCount, (scores, from) => {
    for (let i = 0; i < scores.length; i++) {
      const score = scores[i]!;
      if (score > top.threshold && accept(from + i)) top.push(score, from + i);
    }
  });
  return top.sorted();
}

/** Scores the first `count` slots of the arena's gather list and offers the accepted ones to `top`. */
function scoreGathered(
  space: VectorSpace,
  q: number,
  count: number,
  top: TopK,
  accept: (slot: number) => boolean,
): void {
  const { gather, gatherIds, gatherScores } = space;
  gather(q, count);
  for (let i = 0; i < count; i++) {
    const score = gatherScores[i]!;
    const slot = gatherIds[i]!;
    if (score > top.threshold && accept(slot)) top.push(score, slot);
  }
}
