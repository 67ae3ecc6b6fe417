/**
 * Scroll and count: points in id order from an offset id (the next page starts at
 * `next_page_offset`), or in payload value order with `order_by`, which needs a range
 * index and, as in Qdrant, lists a point once per value and does not paginate.
 */
import type { Filter } from '../filter/types.js';
import { comparePointIds } from '../point-id.js';
import type { PointId } from '../point-id.js';
import type { Collection } from '../store/collection.js';

/** `order_by` of a scroll or query. */
export interface OrderBy {
  key: string;
  direction: 'asc' | 'desc';
  startFrom?: number;
}

/** A page of slots, with the id the next page starts at. */
export interface ScrollPage {
  slots: number[];
  /** With `order_by`, the value each listed slot was ordered by. */
  orderValues?: number[];
  nextPageOffset: PointId | null;
}

/** Scrolls through the points a filter passes. */
export function scroll(
  collection: Collection,
  request: { filter?: Filter; limit: number; offset?: PointId; orderBy?: OrderBy },
): ScrollPage {
  const { filter, limit } = request;
  if (request.orderBy) return scrollOrdered(collection, request.orderBy, filter, limit);
  const { points } = collection;
  const order = points.slotsById();
  let start = 0;
  if (request.offset !== undefined) {
    const offset = request.offset;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePointIds(points.ids[order[mid]!]!, offset) < 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const slots: number[] = [];
  for (let i = start; i < order.length; i++) {
    const slot = order[i]!;
    if (filter && !collection.slotMatches(slot, filter)) continue;
    if (slots.length === limit) return { slots, nextPageOffset: points.ids[slot]! };
    slots.push(slot);
  }
  return { slots, nextPageOffset: null };
}

function scrollOrdered(
  collection: Collection,
  orderBy: OrderBy,
  filter: Filter | undefined,
  limit: number,
): ScrollPage {
  const index = collection.rangeIndex(orderBy.key);
  const slots: number[] = [];
  const orderValues: number[] = [];
  if (limit > 0) {
    for (const { value, slot } of index.ordered(orderBy.direction, orderBy.startFrom)) {
      if (!collection.points.alive[slot]) continue;
      if (filter && !collection.slotMatches(slot, filter)) continue;
      slots.push(slot);
      orderValues.push(value);
      if (slots.length === limit) break;
    }
  }
  return { slots, orderValues, nextPageOffset: null };
}

/** How many points pass a filter (always exact). */
export function count(collection: Collection, filter?: Filter): number {
  const { points } = collection;
  if (!filter) return points.liveCount;
  let n = 0;
  for (const slot of points.liveSlots()) if (collection.slotMatches(slot, filter)) n++;
  return n;
}
