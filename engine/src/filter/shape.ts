/**
 * Strict reading of the objects of Qdrant's filter language. Each object may hold only
 * the keys its Qdrant type declares: a key nobody declared (`kye` for `key`, `mtch` for
 * `match`) is a 400 naming it, because accepting it would drop a condition the client
 * meant, and a dropped condition widens what a filter selects (a `points/delete` by
 * such a filter would delete every point). A JSON `null` counts as absent, as for
 * Qdrant's `Option` fields.
 */
import { EngineError, formatError } from '../errors.js';
import { tryParseJsonPath } from '../../../common/json-path.js';
import type { JsonPath } from '../../../common/json-path.js';
import { parsePointId } from '../point-id.js';
import type { PointId } from '../point-id.js';

/** A JSON object of a request. */
export type Obj = Record<string, unknown>;

/** Whether a value is a JSON object (not an array, not null). */
export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** serde's name for the type of a JSON value, for "invalid type" messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a sequence';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') {
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  }
  return typeof value;
}

/** The 400 for a value of the wrong JSON type, worded like serde's. */
export function invalidType(where: string, value: unknown, expected: string) {
  return formatError(`${where}: invalid type: ${describe(value)}, expected ${expected}`);
}

/** The 400 for a key the object's type does not declare, worded like serde's. */
export function unknownField(where: string, key: string, allowed: readonly string[]) {
  const list = allowed.map((k) => `\`${k}\``).join(', ');
  return formatError(`${where}: unknown field \`${key}\`, expected one of ${list}`);
}

/**
 * Checks that `raw` is an object holding only `allowed` keys, and that each of
 * `required` is present and not null; returns it.
 */
export function strictObject(
  raw: unknown,
  where: string,
  expected: string,
  allowed: readonly string[],
  required: readonly string[] = [],
): Obj {
  if (!isObj(raw)) throw invalidType(where, raw, expected);
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) throw unknownField(where, key, allowed);
  }
  for (const key of required) {
    if (raw[key] === undefined || raw[key] === null) {
      throw formatError(`${where}: missing field \`${key}\``);
    }
  }
  return raw;
}

/** A present, non-null field of a request object. */
export function present(obj: Obj, key: string): unknown {
  const value = obj[key];
  return value === null ? undefined : value;
}

/** An integer value (JSON.parse cannot tell `1.0` from `1`; neither can this). */
export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

/** A number JSON.parse read as infinite (`1e400`) is Qdrant's (serde_json's) 400. */
export function finite(value: number, where: string): number {
  if (!Number.isFinite(value)) {
    throw formatError(`${where}: number out of range (${value}): numbers must be finite`);
  }
  return value;
}

/** A JSON string, or the 400 saying it is not one. */
export function readString(raw: unknown, where: string): string {
  if (typeof raw !== 'string') throw invalidType(where, raw, 'a string');
  return raw;
}

/** A non-negative integer (Rust's usize), or the 400 saying it is not one. */
export function readUnsigned(raw: unknown, where: string): number {
  if (!isInteger(raw) || raw < 0 || !Number.isSafeInteger(raw)) {
    throw invalidType(where, raw, 'usize');
  }
  return raw;
}

const FORMAT_PREFIX = 'Format error in JSON body: ';

/** A payload key path, or the 400 naming where the bad one was. */
export function readPath(raw: unknown, where: string): JsonPath {
  const text = readString(raw, where);
  const path = tryParseJsonPath(text);
  if (!path) throw formatError(`${where}: Invalid json path: '${text}'`);
  return path;
}

/** Point ids, with the index of a bad one in the 400. */
export function readPointIds(raw: unknown, where: string): PointId[] {
  if (!Array.isArray(raw)) throw invalidType(where, raw, 'a list of point ids');
  return raw.map((value, i) => {
    try {
      return parsePointId(value);
    } catch (error) {
      if (!(error instanceof EngineError) || !error.message.startsWith(FORMAT_PREFIX)) throw error;
      const detail = error.message.slice(FORMAT_PREFIX.length);
      throw new EngineError(error.status, `${FORMAT_PREFIX}${where}[${i}]: ${detail}`, {
        cause: error,
      });
    }
  });
}
