/**
 * Conditional writes: an upsert's `update_filter` and `update_mode`, and a vector
 * update's `update_filter`, resolved against the collection as it is when the write is
 * read. The write that reaches the engine lists only the points that pass, so the log
 * records (and a replay applies) exactly what was applied. Reading and applying happen
 * in one synchronous step of the route, so no other write comes between.
 */
import type { Filter } from '../filter/types.js';
import type { Collection } from '../store/collection.js';
import type { PointWrite, VectorWrite } from '../store/operations.js';

/** Qdrant's upsert modes. */
export type UpdateMode = 'upsert' | 'insert_only' | 'update_only';

/**
 * The points of an upsert that are written: a new point unless the mode is `update_only`;
 * an existing one unless the mode is `insert_only`, and then only when it passes the
 * filter (Qdrant's conditional upsert: the condition guards overwrites, not inserts).
 */
export function upsertsThatApply(
  collection: Collection,
  points: PointWrite[],
  filter: Filter | undefined,
  mode: UpdateMode,
): PointWrite[] {
  if (!filter && mode === 'upsert') return points;
  return points.filter((p) => {
    const slot = collection.points.slotOf(p.id);
    if (slot === undefined) return mode !== 'update_only';
    if (mode === 'insert_only') return false;
    return !filter || collection.slotMatches(slot, filter);
  });
}

/**
 * The vector updates that apply: those of points that pass the filter, and those of
 * points that do not exist (which still answer Qdrant's 404).
 */
export function vectorUpdatesThatApply(
  collection: Collection,
  points: VectorWrite[],
  filter: Filter | undefined,
): VectorWrite[] {
  if (!filter) return points;
  return points.filter((p) => {
    const slot = collection.points.slotOf(p.id);
    return slot === undefined || collection.slotMatches(slot, filter);
  });
}
