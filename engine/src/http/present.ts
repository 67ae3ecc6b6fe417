/**
 * Points as Qdrant's REST API prints them: records `{id, payload, vector}` and scored
 * points `{id, version, score, payload, vector}`, with `null` for what was not asked for
 * and `order_value` only when ordering by a payload field.
 */
import { projectPayload } from '../../../common/json-path.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PayloadSelection } from '../request/fields.js';
import type { Presentation } from '../request/queries.js';
import type { Collection } from '../store/collection.js';

/** The shortest decimal that reads back as the same float32, as Qdrant (serde) prints f32. */
export function shortestFloat32(x: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(x.toPrecision(digits));
    if (Math.fround(candidate) === x) return candidate;
  }
  return x;
}

function payloadOf(payload: JsonObject, selection: PayloadSelection): JsonObject | null {
  if (selection === false) return null;
  if (selection === true) return payload;
  return projectPayload(payload, selection.paths, selection.mode);
}

function vectorOf(collection: Collection, slot: number): number[] {
  return Array.from(collection.points.vectors.get(slot), shortestFloat32);
}

/** A retrieved or scrolled point. */
export function presentRecord(
  collection: Collection,
  slot: number,
  how: Presentation,
  orderValue?: number,
): Record<string, unknown> {
  const { points } = collection;
  const out: Record<string, unknown> = {
    id: points.ids[slot],
    payload: payloadOf(points.payloads[slot]!, how.withPayload),
    vector: how.withVector ? vectorOf(collection, slot) : null,
  };
  if (orderValue !== undefined) out.order_value = orderValue;
  return out;
}

/** A point found by a search or query. */
export function presentScored(
  collection: Collection,
  slot: number,
  score: number,
  how: Presentation,
  orderValue?: number,
): Record<string, unknown> {
  const { points } = collection;
  const out: Record<string, unknown> = {
    id: points.ids[slot],
    version: points.versions[slot],
    score: shortestFloat32(score),
    payload: payloadOf(points.payloads[slot]!, how.withPayload),
    vector: how.withVector ? vectorOf(collection, slot) : null,
  };
  if (orderValue !== undefined) out.order_value = orderValue;
  return out;
}
