/**
 * Every slot's answer to a filter, read from the payload indexes instead of the payloads:
 * a broad filter's plan remembers one answer per slot, and taking them all from the
 * index at once costs a few nanoseconds a slot where evaluating a payload costs a few
 * hundred. The answers are the filter's own (what evaluate.ts says for a live slot);
 * where no index knows, a slot's answer is left unknown for evaluation to give. The
 * logic has three values: a `must` with one failing condition fails whatever the others
 * say, a `should` with one passing condition passes.
 */
import type { Condition, Filter } from '../filter/types.js';
import type { Collection } from '../store/collection.js';
import { FAILS, PASSES, UNKNOWN } from './verdicts.js';

/** How deep to look into filters nested in conditions; deeper ones are left unknown. */
const MAX_DEPTH = 8;

/**
 * Each slot's answer (UNKNOWN, PASSES or FAILS) to a filter as the payload indexes give
 * it, or undefined when they know nothing about it. Answers of slots that are not live
 * mean nothing.
 */
export function indexedAnswers(collection: Collection, filter: Filter): Uint8Array | undefined {
  const answers = filterAnswers(collection, filter, 0);
  return answers?.some((a) => a !== UNKNOWN) ? answers : undefined;
}

/** `undefined` stands for every slot unknown, so an unindexed condition costs nothing. */
type Answers = Uint8Array | undefined;

function filterAnswers(collection: Collection, filter: Filter, depth: number): Answers {
  const n = collection.points.slotCount;
  // null while every slot passes (an empty filter's answer), which the first part replaces.
  let all: Answers | null = null;
  const also = (answers: Answers) => {
    all = all === null ? answers : and(all, answers);
  };
  if (filter.should && filter.should.length > 0) {
    let some: Answers = new Uint8Array(n).fill(FAILS);
    for (const c of filter.should) some = or(some, conditionAnswers(collection, c, depth));
    also(some);
  }
  if (filter.minShould) {
    const { conditions, minCount } = filter.minShould;
    also(atLeast(collection, conditions, minCount, depth));
  }
  for (const c of filter.must ?? []) also(conditionAnswers(collection, c, depth));
  for (const c of filter.mustNot ?? []) also(not(conditionAnswers(collection, c, depth)));
  return all === null ? new Uint8Array(n).fill(PASSES) : all;
}

function conditionAnswers(collection: Collection, condition: Condition, depth: number): Answers {
  const { points } = collection;
  switch (condition.kind) {
    case 'field': {
      const index = collection.fieldIndexes.get(condition.key);
      if (!index) return undefined;
      // markMatches marks the passing slots PASSES over FAILS.
      const out = new Uint8Array(points.slotCount).fill(FAILS);
      const undecided = index.markMatches(condition, out);
      if (!undecided) return undefined;
      for (const slot of undecided) if (out[slot] === FAILS) out[slot] = UNKNOWN;
      return out;
    }
    case 'has_id': {
      const out = new Uint8Array(points.slotCount).fill(FAILS);
      for (const id of condition.ids) {
        const slot = points.slotOf(id);
        if (slot !== undefined) out[slot] = PASSES;
      }
      return out;
    }
    case 'has_vector':
      // Outside `nested`, every point has its one unnamed vector.
      return new Uint8Array(points.slotCount).fill(condition.vector === '' ? PASSES : FAILS);
    case 'filter':
      return depth < MAX_DEPTH ? filterAnswers(collection, condition.filter, depth + 1) : undefined;
    default:
      // is_empty, is_null and nested read payloads no index answers for here.
      return undefined;
  }
}

/** Both: fails if either fails, passes if both pass. Reuses `a`. */
function and(a: Answers, b: Answers): Answers {
  if (!a || !b) return keepOnly(a ?? b, FAILS);
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    a[i] = x === FAILS || y === FAILS ? FAILS : x === PASSES && y === PASSES ? PASSES : UNKNOWN;
  }
  return a;
}

/** Either: passes if either passes, fails if both fail. Reuses `a`. */
function or(a: Answers, b: Answers): Answers {
  if (!a || !b) return keepOnly(a ?? b, PASSES);
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    a[i] = x === PASSES || y === PASSES ? PASSES : x === FAILS && y === FAILS ? FAILS : UNKNOWN;
  }
  return a;
}

/** Combined with "unknown everywhere", only `decisive` answers stay known. */
function keepOnly(a: Answers, decisive: number): Answers {
  if (!a) return undefined;
  for (let i = 0; i < a.length; i++) if (a[i] !== decisive) a[i] = UNKNOWN;
  return a;
}

/** The opposite answer; unknown stays unknown. Reuses `a`. */
function not(a: Answers): Answers {
  if (!a) return undefined;
  for (let i = 0; i < a.length; i++)
    a[i] = a[i] === PASSES ? FAILS : a[i] === FAILS ? PASSES : UNKNOWN;
  return a;
}

/** `min_should`: at least `minCount` of the conditions pass. */
function atLeast(
  collection: Collection,
  conditions: readonly Condition[],
  minCount: number,
  depth: number,
): Answers {
  const n = collection.points.slotCount;
  const passed = new Int32Array(n);
  const unknown = new Int32Array(n);
  for (const c of conditions) {
    const answers = conditionAnswers(collection, c, depth);
    for (let i = 0; i < n; i++) {
      const x = answers ? answers[i]! : UNKNOWN;
      if (x === PASSES) passed[i]!++;
      else if (x === UNKNOWN) unknown[i]!++;
    }
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const p = passed[i]!;
    out[i] = p >= minCount ? PASSES : p + unknown[i]! < minCount ? FAILS : UNKNOWN;
  }
  return out;
}
