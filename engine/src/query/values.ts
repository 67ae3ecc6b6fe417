/**
 * The values at a payload key that grouping and faceting read: arrays at the end of the
 * path are looked into (one level, as Qdrant's indexes do), and each distinct value
 * counts once per point.
 */
import { getValues } from '../../../common/json-path.js';
import type { JsonObject, JsonPath } from '../../../common/json-path.js';

/** The distinct values of a point at a path, arrays flattened. */
export function distinctValues(payload: JsonObject, path: JsonPath): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  for (const value of getValues(payload, path)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (seen.has(v)) continue;
      seen.add(v);
      out.push(v);
    }
  }
  return out;
}
