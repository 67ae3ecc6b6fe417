/**
 * Evaluates a parsed filter against one point with Qdrant's rules (query_checker.rs and
 * condition_checker.rs): a missing field fails every condition except the ones about
 * emptiness; an array value matches when one element does (one level deep); `match`
 * compares only like types (an integer never matches a string or a float).
 */
import { getValues } from '../../../common/json-path.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';
import { parseDatetime } from './datetime.js';
import { haversineMeters, inBoundingBox, inPolygon } from './geo.js';
import { DEFAULT_TOKENIZER, indexedTextMatches, textMatches } from './text.js';
import type { TokenizerConfig } from './text.js';
import type {
  Condition,
  FieldCondition,
  Filter,
  GeoPoint,
  Match,
  Range,
  ValuesCount,
} from './types.js';

/** What evaluation needs from the collection: which keys it indexes, and how text ones tokenize. */
export interface FilterContext {
  /** The tokenizer of the text index on `key` (a full path), if there is one. */
  tokenizerFor(key: string): TokenizerConfig | undefined;
  /** The payload indexes by key: is_empty and is_null flags on an indexed key read it. */
  readonly fieldIndexes?: ReadonlyMap<string, unknown>;
}

/** A collection without text indexes. */
export const NO_INDEXES: FilterContext = { tokenizerFor: () => undefined };

/** Whether the point with this id and payload passes the filter. */
export function matchesFilter(
  filter: Filter,
  id: PointId,
  payload: JsonObject,
  context: FilterContext,
): boolean {
  return checkFilter(filter, payload, { id, context, prefix: '' });
}

interface Scope {
  /** The point's id; undefined inside `nested`, where Qdrant does not support has_id. */
  id: PointId | undefined;
  context: FilterContext;
  /** Path of the nested array this payload is an element of (`a[].`), to find indexes. */
  prefix: string;
}

/**
 * The values of the condition's key when it has a payload index, or undefined: Qdrant's
 * index keeps emptiness and nullness per point and its checker answers the is_empty and
 * is_null flags of a field condition with it, so for a key with many values (`a[].b`)
 * the flags describe all of them together, not each one.
 *
 * Not inside `nested`: there Qdrant asks each element, as documented, except when its
 * query planner happens to take candidates from that index (then for the whole point);
 * the engine always asks each element.
 */
function indexedValues(
  condition: FieldCondition,
  payload: JsonObject,
  scope: Scope,
): unknown[] | undefined {
  if (scope.prefix !== '' || !scope.context.fieldIndexes?.has(condition.key)) return undefined;
  return getValues(payload, condition.path);
}

function checkFilter(filter: Filter, payload: JsonObject, scope: Scope): boolean {
  if (filter.should && filter.should.length > 0) {
    if (!filter.should.some((c) => checkCondition(c, payload, scope))) return false;
  }
  if (filter.minShould) {
    const { conditions, minCount } = filter.minShould;
    let matched = 0;
    for (const c of conditions) {
      if (matched >= minCount) break;
      if (checkCondition(c, payload, scope)) matched++;
    }
    if (matched < minCount) return false;
  }
  if (filter.must && !filter.must.every((c) => checkCondition(c, payload, scope))) return false;
  if (filter.mustNot && filter.mustNot.some((c) => checkCondition(c, payload, scope))) {
    return false;
  }
  return true;
}

function checkCondition(condition: Condition, payload: JsonObject, scope: Scope): boolean {
  switch (condition.kind) {
    case 'field':
      return checkField(condition, payload, scope);
    case 'is_empty':
      return getValues(payload, condition.path).every(isEmptyValue);
    case 'is_null':
      return getValues(payload, condition.path).some(isNullValue);
    case 'has_id':
      return scope.id !== undefined && condition.ids.has(scope.id);
    case 'has_vector':
      // One unnamed vector per point: "" names it, inside `nested` there is none.
      return scope.id !== undefined && condition.vector === '';
    case 'nested': {
      const inner: Scope = {
        id: undefined,
        context: scope.context,
        prefix: scope.prefix + condition.key + '.',
      };
      return getValues(payload, condition.path).some(
        (element) => isObject(element) && checkFilter(condition.filter, element, inner),
      );
    }
    case 'filter':
      return checkFilter(condition.filter, payload, scope);
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyValue(value: unknown): boolean {
  return value === null || (Array.isArray(value) && value.length === 0);
}

function isNullValue(value: unknown): boolean {
  return value === null || (Array.isArray(value) && value.includes(null));
}

function checkField(field: FieldCondition, payload: JsonObject, scope: Scope): boolean {
  let condition = field;
  if (field.isEmpty !== undefined || field.isNull !== undefined) {
    const pointValues = indexedValues(field, payload, scope);
    if (pointValues) {
      // The flags from the index, for the whole point; the condition's other kinds below.
      const { isEmpty, isNull, ...rest } = field;
      if (isEmpty !== undefined && pointValues.every(isEmptyValue) === isEmpty) return true;
      if (isNull !== undefined && pointValues.some(isNullValue) === isNull) return true;
      if (!rest.match && !hasOtherKinds(rest)) return false;
      condition = rest;
    }
  }
  const values = getValues(payload, condition.path);
  if (values.length === 0) return checkEmpty(condition);
  const match = condition.match;
  let tokenizer = DEFAULT_TOKENIZER;
  if (match && isTextMatch(match)) {
    const indexed = scope.context.tokenizerFor(scope.prefix + condition.key);
    if (indexed) {
      tokenizer = indexed;
      if (match.kind !== 'phrase' && !hasOtherKinds(condition)) {
        const strings = values.flat().filter((v): v is string => typeof v === 'string');
        return indexedTextMatches(match.kind as 'text' | 'text_any', strings, match.text, indexed);
      }
    }
  }
  for (const value of values) if (checkValue(condition, value, tokenizer)) return true;
  return false;
}

function hasOtherKinds(c: FieldCondition): boolean {
  return Boolean(c.range) || asksBesidesMatchAndRange(c);
}

/** Whether a field condition asks anything besides `match` and `range` (geo, values_count, is_empty, is_null). */
export function asksBesidesMatchAndRange(c: FieldCondition): boolean {
  return Boolean(
    c.geoBoundingBox ||
    c.geoRadius ||
    c.geoPolygon ||
    c.valuesCount ||
    c.isEmpty !== undefined ||
    c.isNull !== undefined,
  );
}

function isTextMatch(
  match: Match,
): match is Extract<Match, { kind: 'text' | 'text_any' | 'phrase' }> {
  return match.kind === 'text' || match.kind === 'text_any' || match.kind === 'phrase';
}

/** Qdrant's answer when a field has no value at all. */
function checkEmpty(condition: FieldCondition): boolean {
  if (condition.isEmpty !== undefined) return condition.isEmpty;
  if (condition.isNull !== undefined) return !condition.isNull;
  if (condition.valuesCount) return countInBounds(0, condition.valuesCount);
  return false;
}

function checkValue(condition: FieldCondition, value: unknown, tokenizer: TokenizerConfig) {
  if (condition.valuesCount) return countInBounds(countOf(value), condition.valuesCount);
  if (condition.isEmpty !== undefined) {
    return (value === null || (Array.isArray(value) && value.length === 0)) === condition.isEmpty;
  }
  if (condition.isNull !== undefined) return isNullValue(value) === condition.isNull;
  if (Array.isArray(value)) return value.some((v) => checkScalar(condition, v, tokenizer));
  return checkScalar(condition, value, tokenizer);
}

function countOf(value: unknown): number {
  if (value === null) return 0;
  return Array.isArray(value) ? value.length : 1;
}

function countInBounds(count: number, b: ValuesCount): boolean {
  return (
    (b.lt === undefined || count < b.lt) &&
    (b.gt === undefined || count > b.gt) &&
    (b.lte === undefined || count <= b.lte) &&
    (b.gte === undefined || count >= b.gte)
  );
}

/** One (non-array) value against the condition; the kinds present are ORed, as in Qdrant. */
function checkScalar(condition: FieldCondition, value: unknown, tokenizer: TokenizerConfig) {
  if (condition.match && checkMatch(condition.match, value, tokenizer)) return true;
  if (condition.range && checkRange(condition.range, value)) return true;
  const geo = condition.geoBoundingBox || condition.geoRadius || condition.geoPolygon;
  if (geo) {
    const point = asGeoPoint(value);
    if (point) {
      const box = condition.geoBoundingBox;
      if (box && inBoundingBox(point, box.topLeft, box.bottomRight)) return true;
      const radius = condition.geoRadius;
      if (radius && haversineMeters(radius.center, point) < radius.radius) return true;
      const polygon = condition.geoPolygon;
      if (polygon && inPolygon(point, polygon.exterior, polygon.interiors)) return true;
    }
  }
  return false;
}

function asGeoPoint(value: unknown): GeoPoint | undefined {
  if (!isObject(value)) return undefined;
  const { lon, lat } = value;
  return typeof lon === 'number' && typeof lat === 'number' ? { lon, lat } : undefined;
}

function checkMatch(match: Match, value: unknown, tokenizer: TokenizerConfig): boolean {
  switch (match.kind) {
    case 'value':
      if (typeof match.value === 'number') {
        return typeof value === 'number' && Number.isInteger(value) && value === match.value;
      }
      return value === match.value;
    case 'text':
    case 'text_any':
    case 'phrase':
      return typeof value === 'string' && textMatches(match.kind, value, match.text, tokenizer);
    // Keyword matches: code units compare like UTF-8 bytes for whole strings, as in Qdrant.
    case 'prefix':
      return typeof value === 'string' && value.startsWith(match.text);
    case 'substring':
      return typeof value === 'string' && value.includes(match.text);
    case 'any':
      if (typeof value === 'string') return match.strings?.has(value) ?? false;
      if (typeof value === 'number' && Number.isInteger(value)) {
        return match.integers?.has(value) ?? false;
      }
      return false;
    case 'except':
      if (value === null) return false;
      if (typeof value === 'string' && match.strings) return !match.strings.has(value);
      if (typeof value === 'number' && match.integers && Number.isInteger(value)) {
        return !match.integers.has(value);
      }
      return true;
  }
}

function checkRange(range: Range, value: unknown): boolean {
  let x: number | undefined;
  if (range.type === 'number') x = typeof value === 'number' ? value : undefined;
  else x = typeof value === 'string' ? parseDatetime(value) : undefined;
  if (x === undefined) return false;
  return (
    (range.lt === undefined || x < range.lt) &&
    (range.gt === undefined || x > range.gt) &&
    (range.lte === undefined || x <= range.lte) &&
    (range.gte === undefined || x >= range.gte)
  );
}
