/**
 * Narrows a filter to candidate slots with payload indexes: each top-level `must`
 * condition an index can answer yields a set, and the smallest one is scanned instead of
 * the whole collection. The full filter is still checked on every candidate.
 */
import type { Filter } from '../filter/types.js';
import type { Collection } from '../store/collection.js';

/** The smallest indexed candidate set of a filter, or undefined when no index applies. */
export function filterCandidates(collection: Collection, filter: Filter): Set<number> | undefined {
  let best: Set<number> | undefined;
  for (const condition of filter.must ?? []) {
    if (condition.kind === 'has_id') {
      const slots = new Set<number>();
      for (const id of condition.ids) {
        const slot = collection.points.slotOf(id);
        if (slot !== undefined) slots.add(slot);
      }
      if (!best || slots.size < best.size) best = slots;
      continue;
    }
    if (condition.kind !== 'field') continue;
    const index = collection.fieldIndexes.get(condition.key);
    const slots = index?.candidates(condition);
    if (slots && (!best || slots.size < best.size)) best = slots;
  }
  return best;
}
