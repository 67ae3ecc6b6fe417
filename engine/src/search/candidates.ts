/**
 * Narrows a filter to candidate slots with payload indexes: each `must` condition an index
 * can answer yields a set, and the smallest one is scanned instead of the whole
 * collection. The full filter is still checked on every candidate, so a set only has to
 * hold every point that can pass; a condition no index answers exactly (except, is_empty,
 * is_null, values_count, text, geo, nested, a field condition ORing several kinds) yields
 * none. A filter given as a `must` condition (as the query API combines a request's
 * filters) is looked into: its `must` conditions bind the point as well.
 */
import type { Condition, Filter } from '../filter/types.js';
import type { Collection } from '../store/collection.js';

/** How deep to look into filters nested in `must`; deeper ones are just checked. */
const MAX_DEPTH = 8;

/** The smallest indexed candidate set of a filter, or undefined when no index applies. */
export function filterCandidates(collection: Collection, filter: Filter): Set<number> | undefined {
  return smallest(collection, filter.must ?? [], 0);
}

function smallest(
  collection: Collection,
  must: readonly Condition[],
  depth: number,
): Set<number> | undefined {
  let best: Set<number> | undefined;
  for (const condition of must) {
    const slots = conditionCandidates(collection, condition, depth);
    if (slots && (!best || slots.size < best.size)) best = slots;
  }
  return best;
}

function conditionCandidates(
  collection: Collection,
  condition: Condition,
  depth: number,
): Set<number> | undefined {
  switch (condition.kind) {
    case 'has_id': {
      const slots = new Set<number>();
      for (const id of condition.ids) {
        const slot = collection.points.slotOf(id);
        if (slot !== undefined) slots.add(slot);
      }
      return slots;
    }
    case 'field':
      return collection.fieldIndexes.get(condition.key)?.candidates(condition);
    case 'filter':
      return depth < MAX_DEPTH
        ? smallest(collection, condition.filter.must ?? [], depth + 1)
        : undefined;
    default:
      return undefined;
  }
}
