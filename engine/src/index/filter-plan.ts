/**
 * How a filtered search finds its points, after Qdrant's query planner: a filter that few
 * points pass is answered by scoring its matches directly (the payload index lists them),
 * a broad one by walking the graph and skipping the points it rejects.
 *
 * Plans are kept per collection until its next write or vacuum, as a search engine's filter
 * cache is: the same filter on every query of a workload (a tenant, a category) then costs
 * one sample and one payload-index lookup, not one per query, and a broad one is evaluated
 * once per slot it meets, or answered for every slot from the payload indexes once it has
 * met enough of them (filter-answers.ts). Only small candidate lists are kept, and per-slot
 * answers for a few filters, so the cache stays under `CACHED_FILTERS * threshold` slots
 * plus `REMEMBERED_FILTERS` bytes and bits per slot.
 */
import type { Filter } from '../filter/types.js';
import { filterCandidates } from '../search/candidates.js';
import type { Collection } from '../store/collection.js';
import { indexedAnswers } from './filter-answers.js';
import { FAILS, PASSES, UNKNOWN, passingBits } from './verdicts.js';
import type { KnownVerdicts } from './verdicts.js';

/** What a search needs to know about its filter. */
export interface FilterPlan {
  /** Live points the filter passes, counted when the payload index could, else estimated. */
  matches: number;
  /**
   * The slots that may pass, in slot order, when a payload index lists them and they are
   * at most the threshold; every one must still be checked against the filter.
   */
  candidates: Int32Array | undefined;
  /** Whether a live slot passes the filter; remembered per slot by up to eight plans. */
  passes(slot: number): boolean;
  /**
   * The answers known so far, per slot: PASSES (a live slot that passes), FAILS, or
   * UNKNOWN (ask {@link passes}), with the passing slots as bits once all are known;
   * undefined when the plan remembers none.
   */
  verdicts(): KnownVerdicts | undefined;
}

const SAMPLES = 512;
const CACHED_FILTERS = 64;
/** Filters per collection whose answers are remembered per slot (a byte per slot each). */
const REMEMBERED_FILTERS = 8;

interface PlanCache {
  seq: number;
  slotCount: number;
  threshold: number;
  plans: Map<string, FilterPlan>;
  remembered: number;
}

const caches = new WeakMap<Collection, PlanCache>();

/** JSON of a parsed filter's parts: sets as lists, big integers as strings. */
function keyPart(_key: string, value: unknown): unknown {
  if (value instanceof Set) return [...(value as Set<unknown>)];
  return typeof value === 'bigint' ? String(value) : value;
}

/** Estimates how many live points pass a filter from a deterministic sample of slots. */
function estimateMatches(collection: Collection, filter: Filter): number {
  const { points } = collection;
  const n = points.slotCount;
  const samples = Math.min(n, SAMPLES);
  let live = 0;
  let passed = 0;
  for (let i = 0; i < samples; i++) {
    const slot = Math.floor(((i + 0.5) * n) / samples);
    if (!points.alive[slot]) continue;
    live++;
    if (collection.slotMatches(slot, filter)) passed++;
  }
  return live === 0 ? 0 : (passed / live) * points.liveCount;
}

/**
 * Evaluations a remembering check makes, as a share of the slots, before it asks the payload
 * indexes for every slot's answer at once. During a walk an evaluation costs about a
 * microsecond (the payloads are out of cache) and a 100k-point filter's answers from the
 * index well under a millisecond, about what evaluating a hundred-and-twenty-eighth of the
 * slots one by one costs: a filter asked about once after each write (some tens of
 * evaluations a query) never pays for the index, and one a workload keeps asking pays at
 * most about twice what it needs.
 */
const EVALUATED_BEFORE_INDEX = 1 / 128;

/**
 * Checks a filter slot by slot, remembering each answer: a broad filter is checked on the
 * nodes a graph walk meets, a selective one on the candidates that would enter the top k,
 * and the next query with it meets most of them again. Once it has evaluated its share of
 * the slots, it takes every answer the payload indexes give.
 */
function rememberingCheck(
  collection: Collection,
  filter: Filter,
): Pick<FilterPlan, 'passes' | 'verdicts'> {
  const { alive, slotCount } = collection.points;
  let answers: Uint8Array = new Uint8Array(slotCount); // UNKNOWN, PASSES or FAILS
  let known: KnownVerdicts = { bytes: answers, passing: undefined };
  let evaluations = Math.ceil(slotCount * EVALUATED_BEFORE_INDEX);
  return {
    passes: (slot) => {
      let answer = answers[slot]!;
      if (answer === UNKNOWN && --evaluations === 0) {
        // Answers evaluated so far where the index knows none are dropped: evaluated again.
        const indexed = indexedAnswers(collection, filter);
        if (indexed) {
          // A dead slot fails: a verdict of PASSES is then enough to accept a slot.
          for (let s = 0; s < slotCount; s++) if (alive[s] !== 1) indexed[s] = FAILS;
          answers = indexed;
          known = { bytes: indexed, passing: passingBits(indexed) };
          answer = answers[slot]!;
        }
      }
      if (answer !== UNKNOWN) return answer === PASSES;
      const passes = collection.slotMatches(slot, filter);
      answers[slot] = passes ? PASSES : FAILS;
      return passes;
    },
    verdicts: () => known,
  };
}

/** Plans a filter, `threshold` being the most matches that are scored directly. */
function makePlan(
  collection: Collection,
  filter: Filter,
  threshold: number,
  cache: PlanCache,
): FilterPlan {
  // Answers are remembered by at most REMEMBERED_FILTERS plans of the collection at a time.
  const check = (remember: boolean): Pick<FilterPlan, 'passes' | 'verdicts'> => {
    if (!remember || cache.remembered >= REMEMBERED_FILTERS) {
      return { passes: (slot) => collection.slotMatches(slot, filter), verdicts: () => undefined };
    }
    cache.remembered++;
    return rememberingCheck(collection, filter);
  };
  const walked = (matches: number): FilterPlan => ({
    matches,
    candidates: undefined,
    ...check(matches > threshold),
  });
  const estimate = estimateMatches(collection, filter);
  // Building a candidate set of half the collection costs more than a graph search does,
  // so a filter the sample finds broad is not looked up at all.
  if (estimate > 2 * threshold) return walked(estimate);
  const set = filterCandidates(collection, filter);
  if (!set) return walked(estimate);
  if (set.size > threshold) return walked(set.size);
  // The candidates that enter the top k are checked against the filter, mostly the same
  // ones query after query: their answers are remembered as a broad filter's are.
  return { matches: set.size, candidates: Int32Array.from(set).sort(), ...check(true) };
}

/** The plan of a filter on a collection as it is now. */
export function planFilter(collection: Collection, filter: Filter, threshold: number): FilterPlan {
  const { lastSeq, points } = collection;
  let cache = caches.get(collection);
  // A write changes which points pass; a vacuum (which drops slots) moves them.
  if (
    !cache ||
    cache.seq !== lastSeq ||
    cache.slotCount !== points.slotCount ||
    cache.threshold !== threshold
  ) {
    cache = {
      seq: lastSeq,
      slotCount: points.slotCount,
      threshold,
      plans: new Map(),
      remembered: 0,
    };
    caches.set(collection, cache);
  }
  const key = JSON.stringify(filter, keyPart);
  let plan = cache.plans.get(key);
  if (!plan) {
    if (cache.plans.size >= CACHED_FILTERS) {
      cache.plans.clear();
      cache.remembered = 0;
    }
    plan = makePlan(collection, filter, threshold, cache);
    cache.plans.set(key, plan);
  }
  return plan;
}
