/**
 * The parsed form of Qdrant's filter language, checked once when the request is read so
 * evaluation over many points does no validation.
 */
import type { JsonPath } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';

/** A point on the globe, in degrees. */
export interface GeoPoint {
  lon: number;
  lat: number;
}

/** `match`: one of Qdrant's match kinds. */
export type Match =
  | { kind: 'value'; value: string | number | boolean }
  | { kind: 'text' | 'text_any' | 'phrase'; text: string }
  /** Keyword values starting with, or containing, the string (case-sensitive). */
  | { kind: 'prefix' | 'substring'; text: string }
  | { kind: 'any' | 'except'; strings: Set<string> | null; integers: Set<number> | null };

/** `range` over numbers, or over datetimes (bounds in microseconds since the epoch). */
export interface Range {
  type: 'number' | 'datetime';
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** `values_count` bounds. */
export interface ValuesCount {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

/** A condition on one payload field; Qdrant ORs the kinds present. */
export interface FieldCondition {
  kind: 'field';
  key: string;
  path: JsonPath;
  match?: Match;
  range?: Range;
  geoBoundingBox?: { topLeft: GeoPoint; bottomRight: GeoPoint };
  geoRadius?: { center: GeoPoint; radius: number };
  geoPolygon?: { exterior: GeoPoint[]; interiors: GeoPoint[][] };
  valuesCount?: ValuesCount;
  isEmpty?: boolean;
  isNull?: boolean;
}

/** One entry of `must`, `should`, `must_not` or `min_should.conditions`. */
export type Condition =
  | FieldCondition
  | { kind: 'is_empty'; key: string; path: JsonPath }
  | { kind: 'is_null'; key: string; path: JsonPath }
  | { kind: 'has_id'; ids: Set<PointId> }
  | { kind: 'has_vector'; vector: string }
  | { kind: 'nested'; key: string; path: JsonPath; filter: Filter }
  | { kind: 'filter'; filter: Filter };

/** A filter: every `must`, some `should`, no `must_not`, at least `min_count` of `min_should`. */
export interface Filter {
  must?: Condition[];
  should?: Condition[];
  mustNot?: Condition[];
  minShould?: { conditions: Condition[]; minCount: number };
}
