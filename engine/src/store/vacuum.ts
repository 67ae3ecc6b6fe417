/**
 * Vacuum: reclaims the slots of overwritten and deleted points, after Qdrant's vacuum
 * optimizer, which rebuilds a segment once `deleted_threshold` of it is deleted. Slots are
 * compacted in place in the same memory: live slots, and retired ones the HNSW graph still
 * walks through, move down over the others, and the graph and payload indexes follow the
 * moves. The graph's own dead nodes go when the vector index rebuilds it (a third dead);
 * the next vacuum after that rebuild reclaims them.
 *
 * Slot numbers are held only between operations, never across an `await` (writes are
 * applied, reads answered and snapshots written synchronously; the log and snapshots hold
 * points by value), except by an HNSW build in its worker. A vacuum runs after a write
 * or when a build ends; while a build runs, it leaves the slots the build reads where they
 * are and reclaims only those written since, so churn during a long build stays bounded.
 */
import type { FieldIndex } from '../index/payload-index.js';
import type { VectorIndex } from '../index/vector-index.js';
import type { PointStore } from './point-store.js';

/** What a vacuum moves: a collection's points and the indexes that hold their slots. */
export interface VacuumTarget {
  readonly points: PointStore;
  readonly vectorIndex: VectorIndex;
  readonly fieldIndexes: ReadonlyMap<string, FieldIndex>;
}

/** Qdrant's `deleted_threshold`: the fraction of slots that may be reclaimable. */
export const DELETED_THRESHOLD = 0.2;
/** Qdrant's `vacuum_min_vector_number`: fewer reclaimable slots are not worth a vacuum. */
export const VACUUM_MIN_VECTOR_NUMBER = 1000;

/**
 * Retired slots a vacuum would free now: the graph's dead nodes stay, and while a build
 * runs so does every slot it reads.
 */
export function reclaimableSlots(collection: VacuumTarget): number {
  const { points, vectorIndex } = collection;
  const frozen = vectorIndex.frozenBelow;
  if (frozen === 0) return points.slotCount - points.liveCount - vectorIndex.deadNodes;
  const { alive, slotCount } = points;
  let n = 0;
  for (let slot = frozen; slot < slotCount; slot++) if (!alive[slot]) n++;
  return n;
}

/**
 * Vacuums when at least `deleted_threshold` of the slots, and `vacuum_min_vector_number`
 * of them, are reclaimable; returns whether it did. Cheap when there is little to
 * reclaim: retired slots bound what is reclaimable, and only when they pass is the tail
 * scanned.
 */
export function maybeVacuum(collection: VacuumTarget): boolean {
  const { points } = collection;
  const limit = Math.max(VACUUM_MIN_VECTOR_NUMBER, DELETED_THRESHOLD * points.slotCount);
  if (points.slotCount - points.liveCount < limit) return false;
  if (reclaimableSlots(collection) < limit) return false;
  vacuum(collection);
  return true;
}

/**
 * Compacts the collection's slots now: live ones and graph nodes stay, and while a build
 * runs, so does every slot it reads.
 */
export function vacuum(collection: VacuumTarget): void {
  const { points, vectorIndex, fieldIndexes } = collection;
  const alive = points.alive;
  const frozen = vectorIndex.frozenBelow;
  const map = points.compact(
    (slot) => slot < frozen || alive[slot] === 1 || vectorIndex.isNode(slot),
  );
  vectorIndex.remap(map);
  // Field indexes hold live slots only, and every live slot was kept.
  for (const index of fieldIndexes.values()) index.remap(map);
}
