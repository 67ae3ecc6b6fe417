/**
 * Reads Qdrant's filter JSON into {@link Filter}, strictly. A filter holds only `must`,
 * `should`, `must_not` and `min_should` (Qdrant's `Filter` denies unknown fields too);
 * each condition is exactly one of Qdrant's kinds, told apart by the key that names it:
 * `key` (a field condition), `is_empty`, `is_null`, `has_id`, `has_vector`, `nested`, or
 * the keys of a filter. Anything else is a 400 that names the key: a misspelt condition
 * must never read as "no condition", which would widen the filter to every point.
 *
 * Stricter than Qdrant in three places, each a 400 saying why instead of a guess: an
 * unknown key beside a known one (Qdrant's untagged enum drops it), a condition naming
 * two kinds (Qdrant takes the first), and a condition that is an empty object (Qdrant
 * reads `{}` as a filter without conditions, which every point passes).
 */
import { badRequest, formatError } from '../errors.js';
import { formatJsonPath, WILDCARD } from '../../../common/json-path.js';
import type { JsonPath } from '../../../common/json-path.js';
import { parseFieldCondition } from './parse-field.js';
import {
  invalidType,
  isObj,
  present,
  readPath,
  readPointIds,
  readString,
  readUnsigned,
  strictObject,
} from './shape.js';
import type { Obj } from './shape.js';
import type { Condition, Filter } from './types.js';

const FILTER_KEYS = ['should', 'min_should', 'must', 'must_not'] as const;

/** The key naming each kind of condition that is not a filter. */
const CONDITION_KINDS = ['key', 'is_empty', 'is_null', 'has_id', 'has_vector', 'nested'] as const;

/**
 * Condition kinds of later Qdrant versions this engine recognises but does not evaluate:
 * a 400 saying so, never a condition quietly dropped.
 */
const UNSUPPORTED_KINDS = ['slice'] as const;

const EXPECTED_CONDITION =
  'a condition: a field condition ({"key": ..., "match": ...}), `is_empty`, `is_null`, ' +
  '`has_id`, `has_vector`, `nested`, or a filter (`must`, `should`, `must_not`, `min_should`)';

/** Parses a request's `filter` (undefined and null mean no filter). */
export function parseFilter(raw: unknown, where = 'filter'): Filter | undefined {
  if (raw === undefined || raw === null) return undefined;
  return parseFilterObject(raw, where);
}

function parseFilterObject(raw: unknown, where: string): Filter {
  const obj = strictObject(raw, where, 'a filter object', FILTER_KEYS);
  const filter: Filter = {};
  const must = conditionList(obj, 'must', where);
  const should = conditionList(obj, 'should', where);
  const mustNot = conditionList(obj, 'must_not', where);
  if (must) filter.must = must;
  if (should) filter.should = should;
  if (mustNot) filter.mustNot = mustNot;
  const minShould = present(obj, 'min_should');
  if (minShould !== undefined) {
    const at = `${where}.min_should`;
    const keys = ['conditions', 'min_count'];
    const m = strictObject(minShould, at, 'a min_should object', keys, keys);
    if (!Array.isArray(m.conditions)) {
      throw invalidType(`${at}.conditions`, m.conditions, 'a list of conditions');
    }
    filter.minShould = {
      conditions: m.conditions.map((c, i) => parseCondition(c, `${at}.conditions[${i}]`)),
      minCount: readUnsigned(m.min_count, `${at}.min_count`),
    };
  }
  return filter;
}

function conditionList(raw: Obj, key: string, where: string): Condition[] | undefined {
  const value = present(raw, key);
  if (value === undefined) return undefined;
  // Qdrant also takes a single condition where a list is expected (MaybeOneOrMany); it
  // is named as the list's first item.
  const list = Array.isArray(value) ? value : [value];
  return list.map((c, i) => parseCondition(c, `${where}.${key}[${i}]`));
}

function parseCondition(raw: unknown, where: string): Condition {
  if (!isObj(raw)) throw invalidType(where, raw, EXPECTED_CONDITION);
  const keys = Object.keys(raw);
  for (const key of UNSUPPORTED_KINDS) {
    if (keys.includes(key)) {
      throw badRequest(`${where}: the \`${key}\` condition is not supported by this engine`);
    }
  }
  // A field condition is told by its `key`, as in Qdrant; its own keys are checked there.
  if (keys.includes('key')) return parseFieldCondition(raw, where);
  for (const key of keys) {
    const known = (CONDITION_KINDS as readonly string[]).includes(key);
    if (!known && !(FILTER_KEYS as readonly string[]).includes(key)) {
      throw formatError(`${where}: unknown field \`${key}\`, expected ${EXPECTED_CONDITION}`);
    }
  }
  const kinds = CONDITION_KINDS.filter((k) => keys.includes(k));
  const filterKeys = FILTER_KEYS.filter((k) => keys.includes(k));
  if (kinds.length + (filterKeys.length > 0 ? 1 : 0) > 1) {
    const found = [...kinds, ...filterKeys].map((k) => `\`${k}\``).join(' and ');
    throw formatError(`${where}: a condition has exactly one kind, found ${found}`);
  }
  const kind = kinds[0];
  if (kind === undefined) {
    if (filterKeys.every((k) => raw[k] === null)) {
      throw formatError(`${where}: empty condition, expected ${EXPECTED_CONDITION}`);
    }
    return { kind: 'filter', filter: parseFilterObject(raw, where) };
  }
  const value = raw[kind];
  const at = `${where}.${kind}`;
  switch (kind) {
    case 'is_empty':
    case 'is_null': {
      const field = strictObject(value, at, 'a payload field {key}', ['key'], ['key']);
      const path = readPath(field.key, `${at}.key`);
      return { kind, key: formatJsonPath(path), path };
    }
    case 'has_id':
      return { kind, ids: new Set(readPointIds(value, at)) };
    case 'has_vector':
      return { kind, vector: readString(value, at) };
    case 'nested': {
      const keys = ['key', 'filter'];
      const nested = strictObject(value, at, 'a nested object {key, filter}', keys, keys);
      const base = readPath(nested.key, `${at}.key`);
      // Qdrant appends `[]` when the key does not end in one: nested is about arrays.
      const path: JsonPath = base[base.length - 1] === WILDCARD ? base : [...base, WILDCARD];
      return {
        kind,
        key: formatJsonPath(path),
        path,
        filter: parseFilterObject(nested.filter, `${at}.filter`),
      };
    }
    default:
      // 'key' was handled above.
      throw formatError(`${where}: unexpected condition kind \`${kind}\``);
  }
}
