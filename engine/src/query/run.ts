/**
 * Executes the stages of a query (plan.ts) the way Qdrant does: a stage without
 * prefetches searches the collection (nearest through the vector index, the example-based
 * scorings exactly, order_by through the range index, a random sample, or id order); a
 * stage with prefetches runs them first (under its filter) and then fuses their results
 * or rescores the points they found with its own query.
 */
import { passesThreshold, reportedScore } from '../distance.js';
import { badRequest } from '../errors.js';
import { scroll } from '../search/scroll.js';
import { search } from '../search/search.js';
import { TopK } from '../search/top-k.js';
import type { Collection } from '../store/collection.js';
import { dbsf, rrf } from './fusion.js';
import type { Scored, Stage } from './plan.js';
import { examplesOf, scoreBy } from './scorers.js';
import type { ExampleScoring } from './scorers.js';

/** Runs a stage; its best `limit` points after `offset`, best first. */
export function runStage(collection: Collection, stage: Stage, offset = 0): Scored[] {
  if (stage.prefetch.length > 0) return runWithPrefetch(collection, stage, offset);
  const { filter, limit, scoring } = stage;
  const k = offset + limit;
  if (!scoring) {
    const page = scroll(collection, { ...(filter ? { filter } : {}), limit: k });
    return page.slots.slice(offset).map((slot) => ({ slot, score: 1 }));
  }
  switch (scoring.kind) {
    case 'nearest':
      return search(collection, {
        vector: scoring.vector,
        ...(filter ? { filter } : {}),
        limit,
        offset,
        exact: stage.exact,
        ...(stage.hnswEf === undefined ? {} : { hnswEf: stage.hnswEf }),
        ...(stage.quantization ? { quantization: stage.quantization } : {}),
        ...(stage.scoreThreshold === undefined ? {} : { scoreThreshold: stage.scoreThreshold }),
        ...(stage.excludeIds ? { excludeIds: stage.excludeIds } : {}),
      });
    case 'order_by': {
      const page = scroll(collection, {
        ...(filter ? { filter } : {}),
        limit: k,
        orderBy: scoring.orderBy,
      });
      return page.slots
        .map((slot, i) => ({ slot, score: 1, orderValue: page.orderValues![i]! }))
        .slice(offset);
    }
    case 'sample':
      return sample(matchingSlots(collection, stage), k).slice(offset);
    case 'rrf':
    case 'dbsf':
      throw badRequest('Fusion queries need prefetches');
    default:
      return bestByExamples(collection, scoring, matchingSlots(collection, stage), stage, offset);
  }
}

function runWithPrefetch(collection: Collection, stage: Stage, offset: number): Scored[] {
  const lists = stage.prefetch.map((p) => runStage(collection, p));
  const scoring = stage.scoring!;
  const end = offset + stage.limit;
  if (scoring.kind === 'rrf' || scoring.kind === 'dbsf') {
    const fused = scoring.kind === 'rrf' ? rrf(lists, scoring.k, scoring.weights) : dbsf(lists);
    const threshold = stage.scoreThreshold;
    const kept = threshold === undefined ? fused : fused.filter((p) => p.score >= threshold);
    return kept.slice(offset, end);
  }
  const candidates = [...new Set(lists.flatMap((list) => list.map((p) => p.slot)))];
  switch (scoring.kind) {
    case 'nearest':
      return rescoreNearest(collection, scoring.vector, candidates, stage).slice(offset, end);
    case 'order_by': {
      const wanted = new Set(candidates);
      const out: Scored[] = [];
      const index = collection.rangeIndex(scoring.orderBy.key);
      for (const { value, slot } of index.ordered(
        scoring.orderBy.direction,
        scoring.orderBy.startFrom,
      )) {
        if (!wanted.has(slot)) continue;
        out.push({ slot, score: 1, orderValue: value });
        if (out.length === end) break;
      }
      return out.slice(offset);
    }
    case 'sample':
      return sample(candidates, end).slice(offset);
    default:
      return bestByExamples(collection, scoring, candidates, stage, offset);
  }
}

/** Live slots passing a stage's filter and not named by it. */
function matchingSlots(collection: Collection, stage: Stage): number[] {
  const { points } = collection;
  const out: number[] = [];
  for (const slot of points.liveSlots()) {
    if (stage.excludeIds?.has(points.ids[slot]!)) continue;
    if (stage.filter && !collection.slotMatches(slot, stage.filter)) continue;
    out.push(slot);
  }
  return out;
}

/** `count` of the slots chosen at random, score 1. */
function sample(slots: number[], count: number): Scored[] {
  const pool = slots.slice();
  const n = Math.min(count, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(Math.random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n).map((slot) => ({ slot, score: 1 }));
}

/** The nearest of some slots to a vector, with the scores Qdrant reports. */
function rescoreNearest(
  collection: Collection,
  vector: Float32Array,
  slots: number[],
  stage: Stage,
): Scored[] {
  const { points, config } = collection;
  const q = points.vectors.placeQuery(vector);
  const scored = slots
    .filter((slot) => !stage.excludeIds?.has(points.ids[slot]!))
    .map((slot) => ({ slot, similarity: points.vectors.similarity(slot, q) }))
    .sort((a, b) => b.similarity - a.similarity || a.slot - b.slot);
  const out: Scored[] = [];
  for (const { slot, similarity } of scored) {
    const score = reportedScore(config.distance, similarity);
    if (
      stage.scoreThreshold !== undefined &&
      !passesThreshold(config.distance, score, stage.scoreThreshold)
    ) {
      break;
    }
    out.push({ slot, score });
  }
  return out;
}

/** Scores slots against a scoring's examples and keeps the best `offset + limit`. */
function bestByExamples(
  collection: Collection,
  scoring: ExampleScoring,
  slots: number[],
  stage: Stage,
  offset: number,
): Scored[] {
  const { points } = collection;
  const examples = examplesOf(scoring);
  // One pass per example: the arena has room for one query vector at a time.
  const sims = examples.map((example) => {
    const q = points.vectors.placeQuery(example);
    const out = new Float32Array(slots.length);
    for (let i = 0; i < slots.length; i++) out[i] = points.vectors.similarity(slots[i]!, q);
    return out;
  });
  const top = new TopK(offset + stage.limit);
  const row = new Float32Array(examples.length);
  for (let i = 0; i < slots.length; i++) {
    if (stage.excludeIds?.has(points.ids[slots[i]!]!)) continue;
    for (let e = 0; e < examples.length; e++) row[e] = sims[e]![i]!;
    const score = scoreBy(scoring, row);
    // Above the threshold, strictly, as Qdrant keeps these scores (Cosine and Dot only:
    // request/query.ts refuses a threshold here under Euclid and Manhattan).
    if (stage.scoreThreshold !== undefined && !(score > stage.scoreThreshold)) continue;
    top.push(score, slots[i]!);
  }
  return top
    .sorted()
    .slice(offset)
    .map(({ slot, score }) => ({ slot, score }));
}
