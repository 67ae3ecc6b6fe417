/**
 * Reads a field condition (`{"key": ..., "match" | "range" | "geo_*" | "values_count" |
 * "is_empty" | "is_null": ...}`) with the shapes of Qdrant's `FieldCondition`, `Match`,
 * `RangeInterface`, `ValuesCount` and geo types, refusing every key those types do not
 * declare and every value of the wrong type with a 400.
 */
import { formatError, validationError } from '../errors.js';
import { formatJsonPath } from '../../../common/json-path.js';
import { parseDatetime } from './datetime.js';
import {
  finite,
  invalidType,
  isInteger,
  present,
  readPath,
  readString,
  readUnsigned,
  strictObject,
} from './shape.js';
import type { Obj } from './shape.js';
import type { FieldCondition, GeoPoint, Match, Range, ValuesCount } from './types.js';

/** The keys of Qdrant's `FieldCondition`. */
export const FIELD_CONDITION_KEYS = [
  'key',
  'match',
  'range',
  'geo_bounding_box',
  'geo_radius',
  'geo_polygon',
  'values_count',
  'is_empty',
  'is_null',
] as const;

/** Reads a condition object that has a `key`. */
export function parseFieldCondition(raw: Obj, where: string): FieldCondition {
  strictObject(raw, where, 'a field condition', FIELD_CONDITION_KEYS, ['key']);
  const path = readPath(raw.key, `${where}.key`);
  const condition: FieldCondition = { kind: 'field', key: formatJsonPath(path), path };
  const match = present(raw, 'match');
  if (match !== undefined) condition.match = parseMatch(match, `${where}.match`);
  const range = present(raw, 'range');
  if (range !== undefined) condition.range = parseRange(range, `${where}.range`);
  const box = present(raw, 'geo_bounding_box');
  if (box !== undefined) {
    const b = strictObject(box, `${where}.geo_bounding_box`, 'a geo bounding box', BOX_KEYS, [
      ...BOX_KEYS,
    ]);
    condition.geoBoundingBox = {
      topLeft: parseGeoPoint(b.top_left, `${where}.geo_bounding_box.top_left`),
      bottomRight: parseGeoPoint(b.bottom_right, `${where}.geo_bounding_box.bottom_right`),
    };
  }
  const radius = present(raw, 'geo_radius');
  if (radius !== undefined) {
    const at = `${where}.geo_radius`;
    const r = strictObject(radius, at, 'a geo radius', RADIUS_KEYS, RADIUS_KEYS);
    if (typeof r.radius !== 'number') throw invalidType(`${at}.radius`, r.radius, 'f64');
    condition.geoRadius = {
      center: parseGeoPoint(r.center, `${at}.center`),
      radius: finite(r.radius, `${at}.radius`),
    };
  }
  const polygon = present(raw, 'geo_polygon');
  if (polygon !== undefined) condition.geoPolygon = parsePolygon(polygon, `${where}.geo_polygon`);
  const count = present(raw, 'values_count');
  if (count !== undefined) condition.valuesCount = parseBounds(count, `${where}.values_count`);
  const isEmpty = present(raw, 'is_empty');
  if (isEmpty !== undefined) condition.isEmpty = readBoolean(isEmpty, `${where}.is_empty`);
  const isNull = present(raw, 'is_null');
  if (isNull !== undefined) condition.isNull = readBoolean(isNull, `${where}.is_null`);
  if (FIELD_CONDITION_KEYS.every((k) => k === 'key' || present(raw, k) === undefined)) {
    // Qdrant's validator: a field condition with nothing to check (422, as Qdrant answers).
    throw validationError(`${where}: At least one field condition must be specified`);
  }
  return condition;
}

function readBoolean(raw: unknown, where: string): boolean {
  if (typeof raw !== 'boolean') throw invalidType(where, raw, 'a boolean');
  return raw;
}

const BOX_KEYS = ['top_left', 'bottom_right'] as const;
const RADIUS_KEYS = ['center', 'radius'] as const;
const TEXT_KINDS = ['text', 'text_any', 'phrase', 'prefix', 'substring'] as const;
const LIST_KINDS = ['any', 'except'] as const;
/** The keys of Qdrant's `Match` variants, one per variant. */
export const MATCH_KEYS = ['value', ...TEXT_KINDS, ...LIST_KINDS] as const;

/** Rust's i64 range, as far as a double can tell. */
const I64_MAX = 2 ** 63;

/** `match`: exactly one of the variants' keys. */
export function parseMatch(raw: unknown, where: string): Match {
  strictObject(raw, where, 'a match object', MATCH_KEYS);
  const kinds = MATCH_KEYS.filter((k) => present(raw as Obj, k) !== undefined);
  if (kinds.length !== 1) {
    const list = MATCH_KEYS.map((k) => `\`${k}\``).join(', ');
    const found = kinds.length === 0 ? 'none' : kinds.map((k) => `\`${k}\``).join(' and ');
    throw formatError(
      `${where}: data did not match any variant of untagged enum Match: expected exactly one of ${list}, found ${found}`,
    );
  }
  const kind = kinds[0]!;
  const value = (raw as Obj)[kind];
  const at = `${where}.${kind}`;
  if (kind === 'value') {
    if (typeof value === 'string' || typeof value === 'boolean') return { kind, value };
    if (isInteger(value) && Math.abs(value) < I64_MAX) return { kind, value };
    throw invalidType(at, value, 'a string, an integer or a boolean (ValueVariants)');
  }
  if (kind === 'any' || kind === 'except') {
    if (!Array.isArray(value)) throw invalidType(at, value, 'a list of strings or of integers');
    if (value.every((v) => typeof v === 'string')) {
      return { kind, strings: new Set(value as string[]), integers: null };
    }
    if (value.every((v) => isInteger(v) && Math.abs(v) < I64_MAX)) {
      return { kind, strings: null, integers: new Set(value as number[]) };
    }
    throw formatError(
      `${at}: data did not match any variant of untagged enum AnyVariants: expected a list of strings or a list of integers`,
    );
  }
  return { kind, text: readString(value, at) };
}

const BOUNDS = ['gt', 'gte', 'lt', 'lte'] as const;

/**
 * `range` as Qdrant's `RangeInterface` reads it: a string bound makes it a datetime range
 * (every bound then a datetime), otherwise every bound is a number.
 */
export function parseRange(raw: unknown, where: string): Range {
  const r = strictObject(raw, where, 'a range object', BOUNDS);
  const present_ = BOUNDS.filter((b) => present(r, b) !== undefined);
  if (present_.some((b) => typeof r[b] === 'string')) {
    const range: Range = { type: 'datetime' };
    for (const b of present_) {
      const text = r[b];
      const micros = typeof text === 'string' ? parseDatetime(text) : undefined;
      if (micros === undefined) {
        if (typeof text !== 'string') throw invalidType(`${where}.${b}`, text, 'a datetime string');
        throw formatError(
          `${where}.${b}: '${text}' does not match accepted datetime format (RFC3339). Example: 2014-01-01T00:00:00Z`,
        );
      }
      range[b] = micros;
    }
    return range;
  }
  const range: Range = { type: 'number' };
  for (const b of present_) {
    const value = r[b];
    if (typeof value !== 'number') throw invalidType(`${where}.${b}`, value, 'f64');
    range[b] = finite(value, `${where}.${b}`);
  }
  return range;
}

/** `values_count`: unsigned integer bounds. */
function parseBounds(raw: unknown, where: string): ValuesCount {
  const r = strictObject(raw, where, 'a values_count object', BOUNDS);
  const count: ValuesCount = {};
  for (const b of BOUNDS) {
    const v = present(r, b);
    if (v !== undefined) count[b] = readUnsigned(v, `${where}.${b}`);
  }
  return count;
}

const POINT_KEYS = ['lon', 'lat'] as const;

function parseGeoPoint(raw: unknown, where: string): GeoPoint {
  const p = strictObject(raw, where, 'a geo point {lon, lat}', POINT_KEYS, POINT_KEYS);
  for (const k of POINT_KEYS) {
    if (typeof p[k] !== 'number') throw invalidType(`${where}.${k}`, p[k], 'f64');
  }
  const lon = finite(p.lon as number, `${where}.lon`);
  const lat = finite(p.lat as number, `${where}.lat`);
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90) {
    throw formatError(`${where}: Wrong input: lon must be in [-180, 180] and lat in [-90, 90]`);
  }
  return { lon, lat };
}

function parsePolygon(
  raw: unknown,
  where: string,
): { exterior: GeoPoint[]; interiors: GeoPoint[][] } {
  const p = strictObject(raw, where, 'a geo polygon', ['exterior', 'interiors'], ['exterior']);
  const interiors = present(p, 'interiors');
  if (interiors !== undefined && !Array.isArray(interiors)) {
    throw invalidType(`${where}.interiors`, interiors, 'a list of line strings');
  }
  return {
    exterior: parseRing(p.exterior, `${where}.exterior`),
    interiors: ((interiors as unknown[] | undefined) ?? []).map((ring, i) =>
      parseRing(ring, `${where}.interiors[${i}]`),
    ),
  };
}

/** A closed line string, with Qdrant's checks (which run while it reads the body: 400). */
function parseRing(raw: unknown, where: string): GeoPoint[] {
  const line = strictObject(raw, where, 'a line string {points}', ['points'], ['points']);
  if (!Array.isArray(line.points)) {
    throw invalidType(`${where}.points`, line.points, 'a list of geo points');
  }
  const ring = line.points.map((p, i) => parseGeoPoint(p, `${where}.points[${i}]`));
  if (ring.length < 4) {
    throw formatError(
      `${where}: Wrong input: polygon invalid, the size must be at least 4, got ${ring.length}`,
    );
  }
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (
    Math.abs(first.lon - last.lon) > Number.EPSILON ||
    Math.abs(first.lat - last.lat) > Number.EPSILON
  ) {
    throw formatError(
      `${where}: Wrong input: polygon invalid, the first and the last points should be the same to form a closed line`,
    );
  }
  return ring;
}
