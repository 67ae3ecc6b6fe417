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

const float32Bits = new Float32Array(1);
const float32Word = new Uint32Array(float32Bits.buffer);
/** Significant digits past which the float32 is printed as the double it is. */
const MAX_DIGITS = 8;

/** `x` rounded to `digits` significant digits when that reads back as `x`, else undefined. */
function roundTrip(x: number, digits: number): number | undefined {
  const candidate = Number(x.toPrecision(digits));
  return Math.fround(candidate) === x ? candidate : undefined;
}

/**
 * The shortest decimal that reads back as the same float32, as Qdrant (serde) prints f32:
 * the fewest significant digits, up to {@link MAX_DIGITS}, whose correctly rounded decimal
 * converts back to `x`; `x` itself when none does (or when `x` is no float32).
 *
 * Every score and vector component of an answer passes here, so the digits are found by
 * bisection (about 3 conversions instead of up to 8). That finds the same count as trying
 * 1, 2, 3... in turn because a count that round-trips implies the next one does: the next
 * rounding is at least as close to `x`, and the decimals that convert back to `x` lie
 * symmetrically around it. They do except at powers of two (the float32 below is half as
 * far as the one above); those, zero, the infinities and subnormals (where the doubles'
 * spacing changes inside the interval) take the count up one by one.
 */
export function shortestFloat32(x: number): number {
  if (Math.fround(x) !== x) return x;
  float32Bits[0] = x;
  const word = float32Word[0]!;
  if ((word & 0x7fffff) === 0 || (word & 0x7f800000) === 0) {
    for (let digits = 1; digits <= MAX_DIGITS; digits++) {
      const candidate = roundTrip(x, digits);
      if (candidate !== undefined) return candidate;
    }
    return x;
  }
  // The fewest digits in 1..MAX_DIGITS + 1 that round-trip, MAX_DIGITS + 1 standing for none.
  let fewest = 1;
  let most = MAX_DIGITS + 1;
  let shortest = x;
  while (fewest < most) {
    const middle = (fewest + most) >> 1;
    const candidate = roundTrip(x, middle);
    if (candidate === undefined) fewest = middle + 1;
    else {
      most = middle;
      shortest = candidate;
    }
  }
  return shortest;
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
