/**
 * `POST /collections/{c}/facet`: how many points (passing a filter) hold each value of a
 * key, as Qdrant counts them: the key needs an index that answers `match` (keyword,
 * integer, uuid or bool), a point counts once per distinct value of the index's type, and
 * the values come most frequent first, then in value order.
 */
import { badRequest } from '../errors.js';
import type { Filter } from '../filter/types.js';
import { formatJsonPath } from '../../../common/json-path.js';
import { parseJsonPath } from '../json-path.js';
import { normaliseUuid } from '../point-id.js';
import type { Collection } from '../store/collection.js';
import { distinctValues } from './values.js';

/** A value and how many points hold it. */
export interface FacetHit {
  value: string | number | boolean;
  count: number;
}

type FacetValue = FacetHit['value'];

/** The value an index of `type` keeps for a payload value, or undefined. */
function indexedValue(type: string, value: unknown): FacetValue | undefined {
  switch (type) {
    case 'keyword':
      return typeof value === 'string' ? value : undefined;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'uuid':
      return typeof value === 'string' ? normaliseUuid(value) : undefined;
    default:
      return undefined;
  }
}

function compareValues(a: FacetValue, b: FacetValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Counts the values of `key` over the points a filter passes; the `limit` most frequent. */
export function facet(
  collection: Collection,
  key: string,
  limit: number,
  filter: Filter | undefined,
): FacetHit[] {
  const path = parseJsonPath(key);
  const index = collection.fieldIndexes.get(formatJsonPath(path));
  const type = index?.schema.type;
  if (!type || !['keyword', 'integer', 'uuid', 'bool'].includes(type)) {
    throw badRequest(
      `No appropriate index for faceting: \`${key}\`. Please create one to facet on this field. ` +
        'Check https://qdrant.tech/documentation/concepts/indexing/#payload-index to see which payload schemas support Match conditions',
    );
  }
  const counts = new Map<FacetValue, number>();
  const { points } = collection;
  for (const slot of points.liveSlots()) {
    if (filter && !collection.slotMatches(slot, filter)) continue;
    const seen = new Set<FacetValue>();
    for (const raw of distinctValues(points.payloads[slot]!, path)) {
      const value = indexedValue(type, raw);
      if (value === undefined || seen.has(value)) continue;
      seen.add(value);
      counts.set(value, (counts.get(value) ?? 0) + 1);
    }
  }
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || compareValues(a.value, b.value))
    .slice(0, limit);
}
