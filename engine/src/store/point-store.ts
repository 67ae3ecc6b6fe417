/**
 * The points of one collection: vectors in a {@link VectorArena}, and per slot the id,
 * payload, version and whether the slot is live. Rewriting a point's vector takes a new
 * slot and retires the old one, so slots never change under an index being built; a
 * vacuum ({@link PointStore.compact}, run between builds) moves the slots worth keeping
 * down over the retired ones.
 */
import type { Distance } from '../distance.js';
import type { JsonObject } from '../../../common/json-path.js';
import { comparePointIds } from '../point-id.js';
import type { PointId } from '../point-id.js';
import { VectorArena } from './vector-arena.js';
import type { ArenaSize } from './vector-arena.js';

/** Slot storage of a collection. */
export class PointStore {
  readonly vectors: VectorArena;
  ids: PointId[] = [];
  payloads: JsonObject[] = [];
  versions: number[] = [];
  alive = new Uint8Array(1024);
  private readonly slotById = new Map<PointId, number>();
  liveCount = 0;
  private byId: Int32Array | undefined;

  constructor(
    readonly dim: number,
    distance: Distance,
    size: ArenaSize = {},
  ) {
    this.vectors = new VectorArena(dim, distance, size);
  }

  /** Slots used, live or retired. */
  get slotCount(): number {
    return this.vectors.length;
  }

  /** The live slot of a point, or undefined. */
  slotOf(id: PointId): number | undefined {
    return this.slotById.get(id);
  }

  /**
   * Stores a point in a new slot, retiring the slot it had. Returns the new slot. When the
   * vector does not fit (the memory is full) it throws and the point keeps its old slot.
   */
  put(id: PointId, vector: ArrayLike<number>, payload: JsonObject, version: number): number {
    const slot = this.vectors.push(vector);
    const previous = this.slotById.get(id);
    if (previous !== undefined) this.retire(previous);
    if (slot >= this.alive.length) {
      const alive = new Uint8Array(this.alive.length * 2);
      alive.set(this.alive);
      this.alive = alive;
    }
    this.ids[slot] = id;
    this.payloads[slot] = payload;
    this.versions[slot] = version;
    this.alive[slot] = 1;
    this.slotById.set(id, slot);
    this.liveCount++;
    this.byId = undefined;
    return slot;
  }

  /** Removes a point; returns its retired slot, or undefined when it did not exist. */
  remove(id: PointId): number | undefined {
    const slot = this.slotById.get(id);
    if (slot === undefined) return undefined;
    this.slotById.delete(id);
    this.retire(slot);
    return slot;
  }

  private retire(slot: number): void {
    this.alive[slot] = 0;
    // Drop the payload so a retired slot holds no memory but its vector.
    this.payloads[slot] = EMPTY;
    this.liveCount--;
    this.byId = undefined;
  }

  /**
   * Moves the slots `keep` accepts down over the others, in slot order, and forgets the
   * rest; returns each old slot's new number, -1 for a dropped one. Nothing may read the
   * slots meanwhile (an index build in a worker), and whoever holds slot numbers must
   * follow the returned map.
   */
  compact(keep: (slot: number) => boolean): Int32Array {
    const n = this.slotCount;
    const map = new Int32Array(n);
    const { ids, payloads, versions, alive } = this;
    let next = 0;
    for (let slot = 0; slot < n; slot++) {
      if (!keep(slot)) {
        map[slot] = -1;
        continue;
      }
      map[slot] = next;
      if (next !== slot) {
        ids[next] = ids[slot]!;
        payloads[next] = payloads[slot]!;
        versions[next] = versions[slot]!;
        alive[next] = alive[slot]!;
      }
      next++;
    }
    this.vectors.compact(map, next);
    ids.length = next;
    payloads.length = next;
    versions.length = next;
    alive.fill(0, next, n);
    this.slotById.clear();
    for (let slot = 0; slot < next; slot++) if (alive[slot]) this.slotById.set(ids[slot]!, slot);
    this.byId = undefined;
    return map;
  }

  /** Live slots in id order (Qdrant's scroll order), cached until points come or go. */
  slotsById(): Int32Array {
    if (!this.byId) {
      const slots = Int32Array.from(this.liveSlots());
      const ids = this.ids;
      this.byId = slots.sort((a, b) => comparePointIds(ids[a]!, ids[b]!));
    }
    return this.byId;
  }

  /** Every live slot, in slot order. */
  *liveSlots(): Generator<number> {
    const n = this.slotCount;
    for (let slot = 0; slot < n; slot++) if (this.alive[slot]) yield slot;
  }
}

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;

/**
 * The payload of a point whose payload was cleared. Qdrant then holds no payload at all
 * for the point, and a later set-payload stores its payload as given (nulls included)
 * instead of merging it, so "cleared" and "empty" must stay apart.
 */
export const ABSENT_PAYLOAD: JsonObject = Object.freeze({}) as JsonObject;
