/**
 * Strict reading of request objects, the way Qdrant's serde types read them: a key the
 * type does not have is a 400 "unknown field `x`, expected one of ...", and an enum value
 * it does not have is "unknown variant". A field Qdrant has but this engine does not
 * implement is a 400 naming it, never ignored: a request that asks for something must
 * not silently get something else.
 */
import { badRequest, formatError } from '../errors.js';
import type { EngineError } from '../errors.js';
import type { Body } from './fields.js';

/** serde's list of what it expected: "`a`", "`a` or `b`", "one of `a`, `b`, `c`". */
export function expectedList(names: readonly string[]): string {
  const quoted = names.map((n) => `\`${n}\``);
  if (quoted.length === 0) return 'there are no fields';
  if (quoted.length === 1) return `expected ${quoted[0]}`;
  if (quoted.length === 2) return `expected ${quoted[0]} or ${quoted[1]}`;
  return `expected one of ${quoted.join(', ')}`;
}

/** Throws serde's "unknown field" for the first key of `body` not in `fields`. */
export function expectFields(body: Body, fields: readonly string[], where?: string): void {
  for (const key of Object.keys(body)) {
    if (!fields.includes(key)) {
      const at = where ? `${where}: ` : '';
      throw formatError(`${at}unknown field \`${key}\`, ${expectedList(fields)}`);
    }
  }
}

/** The 400 for a field Qdrant has and this engine does not implement. */
export function notSupported(field: string, detail?: string): EngineError {
  return badRequest(`\`${field}\` is not supported by this engine${detail ? ` (${detail})` : ''}`);
}

/** Throws {@link notSupported} for the first of `fields` present with a non-null value. */
export function refuseFields(body: Body, fields: readonly string[], where?: string): void {
  for (const key of fields) {
    const value = body[key];
    if (value !== undefined && value !== null) {
      throw notSupported(where ? `${where}.${key}` : key);
    }
  }
}

/** A string enum field: one of `variants`, or the fallback when absent or null. */
export function readVariant<T extends string>(
  body: Body,
  key: string,
  variants: readonly T[],
  fallback: T,
  where?: string,
): T {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  const at = where ? `${where}.${key}` : key;
  if (typeof value !== 'string') throw formatError(`${at}: invalid type, expected a string`);
  if (!variants.includes(value as T)) {
    throw formatError(`${at}: unknown variant \`${value}\`, ${expectedList(variants)}`);
  }
  return value as T;
}
