/**
 * Reads Qdrant's filter JSON into {@link Filter}. Like Qdrant's untagged serde enums it
 * ignores keys it does not know (a misspelled key is accepted silently, as the gateway's
 * contract says) and tries the condition shapes in Qdrant's order.
 */
import { formatError, validationError } from '../errors.js';
import { parseJsonPath, formatJsonPath, WILDCARD } from '../json-path.js';
import type { JsonPath } from '../json-path.js';
import { parsePointId } from '../point-id.js';
import { parseDatetime } from './datetime.js';
import type {
  Condition,
  FieldCondition,
  Filter,
  GeoPoint,
  Match,
  Range,
  ValuesCount,
} from './types.js';

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A present, non-null field of a request object. */
function field(obj: Obj, key: string): unknown {
  const value = obj[key];
  return value === null ? undefined : value;
}

/** Parses a request's `filter` (undefined and null mean no filter). */
export function parseFilter(raw: unknown, where = 'filter'): Filter | undefined {
  if (raw === undefined || raw === null) return undefined;
  return parseFilterObject(raw, where);
}

function parseFilterObject(raw: unknown, where: string): Filter {
  if (!isObj(raw)) throw formatError(`${where}: invalid type, expected a filter object`);
  const filter: Filter = {};
  const must = conditionList(raw, 'must', where);
  const should = conditionList(raw, 'should', where);
  const mustNot = conditionList(raw, 'must_not', where);
  if (must) filter.must = must;
  if (should) filter.should = should;
  if (mustNot) filter.mustNot = mustNot;
  const minShould = field(raw, 'min_should');
  if (minShould !== undefined) {
    if (!isObj(minShould)) throw formatError(`${where}.min_should: expected an object`);
    const conditions = field(minShould, 'conditions');
    const minCount = field(minShould, 'min_count');
    if (!Array.isArray(conditions)) {
      throw formatError(`${where}.min_should: missing field \`conditions\``);
    }
    if (typeof minCount !== 'number' || !Number.isInteger(minCount) || minCount < 0) {
      throw formatError(`${where}.min_should.min_count: expected an unsigned integer`);
    }
    filter.minShould = {
      conditions: conditions.map((c, i) =>
        parseCondition(c, `${where}.min_should.conditions[${i}]`),
      ),
      minCount,
    };
  }
  return filter;
}

function conditionList(raw: Obj, key: string, where: string): Condition[] | undefined {
  const value = field(raw, key);
  if (value === undefined) return undefined;
  // Qdrant also takes a single condition where a list is expected.
  const list = Array.isArray(value) ? value : [value];
  return list.map((c, i) => parseCondition(c, `${where}.${key}[${i}]`));
}

function parseCondition(raw: unknown, where: string): Condition {
  if (!isObj(raw)) throw formatError(`${where}: expected a condition object`);
  if (field(raw, 'key') !== undefined) return parseFieldCondition(raw, where);
  const isEmpty = field(raw, 'is_empty');
  if (isObj(isEmpty)) {
    const path = parseJsonPath(field(isEmpty, 'key'));
    return { kind: 'is_empty', key: formatJsonPath(path), path };
  }
  const isNull = field(raw, 'is_null');
  if (isObj(isNull)) {
    const path = parseJsonPath(field(isNull, 'key'));
    return { kind: 'is_null', key: formatJsonPath(path), path };
  }
  const hasId = field(raw, 'has_id');
  if (hasId !== undefined) {
    if (!Array.isArray(hasId)) throw formatError(`${where}.has_id: expected a list of point ids`);
    return { kind: 'has_id', ids: new Set(hasId.map(parsePointId)) };
  }
  const hasVector = field(raw, 'has_vector');
  if (hasVector !== undefined) {
    if (typeof hasVector !== 'string') throw formatError(`${where}.has_vector: expected a string`);
    return { kind: 'has_vector', vector: hasVector };
  }
  const nested = field(raw, 'nested');
  if (nested !== undefined) {
    if (!isObj(nested)) throw formatError(`${where}.nested: expected an object`);
    const base = parseJsonPath(field(nested, 'key'));
    const path: JsonPath = base[base.length - 1] === WILDCARD ? base : [...base, WILDCARD];
    const inner = field(nested, 'filter');
    if (inner === undefined) throw formatError(`${where}.nested: missing field \`filter\``);
    return {
      kind: 'nested',
      key: formatJsonPath(path),
      path,
      filter: parseFilterObject(inner, `${where}.nested.filter`),
    };
  }
  return { kind: 'filter', filter: parseFilterObject(raw, where) };
}

function parseFieldCondition(raw: Obj, where: string): FieldCondition {
  const path = parseJsonPath(raw.key);
  const condition: FieldCondition = { kind: 'field', key: formatJsonPath(path), path };
  const match = field(raw, 'match');
  if (match !== undefined) condition.match = parseMatch(match, `${where}.match`);
  const range = field(raw, 'range');
  if (range !== undefined) condition.range = parseRange(range, `${where}.range`);
  const box = field(raw, 'geo_bounding_box');
  if (box !== undefined) {
    if (!isObj(box)) throw formatError(`${where}.geo_bounding_box: expected an object`);
    condition.geoBoundingBox = {
      topLeft: parseGeoPoint(box.top_left, `${where}.geo_bounding_box.top_left`),
      bottomRight: parseGeoPoint(box.bottom_right, `${where}.geo_bounding_box.bottom_right`),
    };
  }
  const radius = field(raw, 'geo_radius');
  if (radius !== undefined) {
    if (!isObj(radius) || typeof radius.radius !== 'number') {
      throw formatError(`${where}.geo_radius: expected {center, radius}`);
    }
    condition.geoRadius = {
      center: parseGeoPoint(radius.center, `${where}.geo_radius.center`),
      radius: finite(radius.radius, `${where}.geo_radius.radius`),
    };
  }
  const polygon = field(raw, 'geo_polygon');
  if (polygon !== undefined) {
    if (!isObj(polygon)) throw formatError(`${where}.geo_polygon: expected an object`);
    const interiors = field(polygon, 'interiors');
    if (interiors !== undefined && !Array.isArray(interiors)) {
      throw formatError(`${where}.geo_polygon.interiors: expected a list`);
    }
    condition.geoPolygon = {
      exterior: parseRing(polygon.exterior, `${where}.geo_polygon.exterior`),
      interiors: ((interiors as unknown[] | undefined) ?? []).map((ring, i) =>
        parseRing(ring, `${where}.geo_polygon.interiors[${i}]`),
      ),
    };
  }
  const count = field(raw, 'values_count');
  if (count !== undefined) condition.valuesCount = parseValuesCount(count, `${where}.values_count`);
  const isEmpty = field(raw, 'is_empty');
  if (isEmpty !== undefined) {
    if (typeof isEmpty !== 'boolean') throw formatError(`${where}.is_empty: expected a boolean`);
    condition.isEmpty = isEmpty;
  }
  const isNull = field(raw, 'is_null');
  if (isNull !== undefined) {
    if (typeof isNull !== 'boolean') throw formatError(`${where}.is_null: expected a boolean`);
    condition.isNull = isNull;
  }
  const kinds = ['match', 'range', 'geoBoundingBox', 'geoRadius', 'geoPolygon', 'valuesCount'];
  if (
    !kinds.some((k) => (condition as unknown as Obj)[k] !== undefined) &&
    condition.isEmpty === undefined &&
    condition.isNull === undefined
  ) {
    throw validationError(`${where}: At least one field condition must be specified`);
  }
  return condition;
}

/** A number JSON.parse read as infinite (`1e400`) is Qdrant's (serde_json's) 400. */
function finite(value: number, where: string): number {
  if (!Number.isFinite(value)) {
    throw formatError(`${where}: number out of range (${value}): numbers must be finite`);
  }
  return value;
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

function parseMatch(raw: unknown, where: string): Match {
  if (!isObj(raw)) throw formatError(`${where}: expected an object`);
  const value = field(raw, 'value');
  if (value !== undefined) {
    if (typeof value === 'string' || typeof value === 'boolean' || isInteger(value)) {
      return { kind: 'value', value };
    }
    throw formatError(
      `${where}.value: data did not match any variant of untagged enum ValueVariants`,
    );
  }
  for (const kind of ['text', 'text_any', 'phrase'] as const) {
    const text = field(raw, kind);
    if (text === undefined) continue;
    if (typeof text !== 'string') throw formatError(`${where}.${kind}: expected a string`);
    return { kind, text };
  }
  for (const kind of ['any', 'except'] as const) {
    const list = field(raw, kind);
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw formatError(`${where}.${kind}: expected a list`);
    if (list.every((v) => typeof v === 'string')) {
      return { kind, strings: new Set(list as string[]), integers: null };
    }
    if (list.every(isInteger)) return { kind, strings: null, integers: new Set(list) };
    throw formatError(
      `${where}.${kind}: data did not match any variant of untagged enum AnyVariants`,
    );
  }
  throw formatError(`${where}: data did not match any variant of untagged enum Match`);
}

const BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;

function parseRange(raw: unknown, where: string): Range {
  if (!isObj(raw)) throw formatError(`${where}: expected an object`);
  const present = BOUNDS.filter((b) => field(raw, b) !== undefined);
  // Qdrant's untagged RangeInterface tries numbers first, then datetimes.
  if (present.every((b) => typeof raw[b] === 'number')) {
    const range: Range = { type: 'number' };
    for (const b of present) range[b] = finite(raw[b] as number, `${where}.${b}`);
    return range;
  }
  const range: Range = { type: 'datetime' };
  for (const b of present) {
    const micros = typeof raw[b] === 'string' ? parseDatetime(raw[b] as string) : undefined;
    if (micros === undefined) {
      throw formatError(`${where}: data did not match any variant of untagged enum RangeInterface`);
    }
    range[b] = micros;
  }
  return range;
}

function parseValuesCount(raw: unknown, where: string): ValuesCount {
  if (!isObj(raw)) throw formatError(`${where}: expected an object`);
  const count: ValuesCount = {};
  for (const b of BOUNDS) {
    const v = field(raw, b);
    if (v === undefined) continue;
    if (!isInteger(v) || v < 0) throw formatError(`${where}.${b}: expected an unsigned integer`);
    count[b] = v;
  }
  return count;
}

function parseGeoPoint(raw: unknown, where: string): GeoPoint {
  if (!isObj(raw) || typeof raw.lon !== 'number' || typeof raw.lat !== 'number') {
    throw formatError(`${where}: expected {lon, lat} numbers`);
  }
  if (raw.lon < -180 || raw.lon > 180 || raw.lat < -90 || raw.lat > 90) {
    throw badGeo(where);
  }
  return { lon: raw.lon, lat: raw.lat };
}

function badGeo(where: string) {
  return validationError(`${where}: Wrong input: lon must be in [-180, 180] and lat in [-90, 90]`);
}

function parseRing(raw: unknown, where: string): GeoPoint[] {
  const points = isObj(raw) ? field(raw, 'points') : undefined;
  if (!Array.isArray(points)) throw formatError(`${where}: expected {points: [...]}`);
  const ring = points.map((p, i) => parseGeoPoint(p, `${where}.points[${i}]`));
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (ring.length < 4) {
    throw validationError(`${where}: polygon invalid, the size must be at least 4`);
  }
  if (!first || !last || first.lon !== last.lon || first.lat !== last.lat) {
    throw validationError(
      `${where}: polygon invalid, the first and the last points should be same`,
    );
  }
  return ring;
}
