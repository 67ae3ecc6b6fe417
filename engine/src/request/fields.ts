/**
 * Readers of request fields with Qdrant's errors: a wrong type is a 400 format error
 * (serde), a value out of range a 422 (validator). `null` counts as absent, as serde's
 * `Option` does. Numbers JSON.parse reads as infinite (`1e400`, which serde_json refuses
 * as out of range) are refused wherever they would be stored or computed with.
 */
import type { Distance } from '../distance.js';
import { preprocess } from '../distance.js';
import { badRequest, formatError, validationError, wrongInput } from '../errors.js';
import type { EngineError } from '../errors.js';
import { parseJsonPath } from '../json-path.js';
import type { JsonObject, JsonPath } from '../../../common/json-path.js';

/** A JSON object from a request. */
export type Body = Record<string, unknown>;

/** The body as an object, or Qdrant's 400. */
export function objectBody(body: unknown, what = 'body'): Body {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw formatError(`${what}: invalid type, expected a JSON object`);
  }
  return body as Body;
}

/** A field that may be absent; null reads as absent. */
export function optional(body: Body, key: string): unknown {
  const value = body[key];
  return value === null ? undefined : value;
}

/**
 * An unsigned integer field with a default, at least `min` (Qdrant's 422 below it) and at
 * most `max` (a 400 naming it: Qdrant takes any usize, this engine states a maximum).
 */
export function readCount(
  body: Body,
  key: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = optional(body, key);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
    throw formatError(`${key}: invalid value ${shown}, expected usize`);
  }
  if (value < min)
    throw validationError(`${key}: value ${value} invalid, must be ${min} or larger`);
  if (value > max) {
    throw badRequest(`${key}: ${value} is more than this engine's maximum of ${max}`);
  }
  return value;
}

/** Qdrant's 400 for a number JSON.parse read as infinite (serde_json refuses it). */
function outOfRange(what: string, value: number): EngineError {
  return formatError(`${what}: number out of range (${value}): numbers must be finite`);
}

/** A non-finite number and where it is, innermost step first. */
interface NonFinite {
  value: number;
  reversedPath: (string | number)[];
}

/**
 * Where a payload holds a number JSON.parse read as infinite (`1e400`), or undefined:
 * Qdrant's parser refuses such a number, and stored it would read back (and replay from
 * the log) as null. Nesting is bounded by the body's depth limit (http/json-body.ts). The
 * path is built only for the refusal: this runs on every upserted payload.
 */
function nonFiniteIn(value: unknown): NonFinite | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { value, reversedPath: [] };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner: unknown = value[i];
      if (typeof inner === 'string' || typeof inner === 'boolean') continue;
      const found = nonFiniteIn(inner);
      if (found) {
        found.reversedPath.push(i);
        return found;
      }
    }
    return undefined;
  }
  for (const key in value) {
    const inner = (value as Body)[key];
    if (typeof inner === 'string' || typeof inner === 'boolean') continue;
    const found = nonFiniteIn(inner);
    if (found) {
      found.reversedPath.push(key);
      return found;
    }
  }
  return undefined;
}

/** A boolean field with a default. */
export function readBool(body: Body, key: string, fallback: boolean): boolean {
  const value = optional(body, key);
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw formatError(`${key}: invalid type, expected a boolean`);
  return value;
}

/** A number field, or undefined. */
export function readNumber(body: Body, key: string): number | undefined {
  const value = optional(body, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw formatError(`${key}: invalid type, expected a number`);
  if (!Number.isFinite(value)) throw outOfRange(key, value);
  return value;
}

/** A payload: an object, or null when absent. */
export function readPayload(value: unknown, what: string): JsonObject | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw formatError(`${what}: invalid type, expected a payload object`);
  }
  const nonFinite = nonFiniteIn(value);
  if (nonFinite) {
    const steps = nonFinite.reversedPath.reverse();
    const where = steps.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`));
    throw outOfRange(`${what}${where.join('')}`, nonFinite.value);
  }
  return value as JsonObject;
}

/**
 * A dense vector of the collection's size, as float32 and preprocessed for its distance.
 * A `{"": [...]}` map names the one unnamed vector.
 */
export function readVector(raw: unknown, dim: number, distance: Distance, what: string) {
  return preprocess(distance, readRawVector(raw, dim, what));
}

/** A dense vector of the collection's size as float32, not yet preprocessed. */
export function readRawVector(raw: unknown, dim: number, what: string): Float32Array {
  let value = raw;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const names = Object.keys(value);
    if (names.length !== 1 || names[0] !== '') {
      throw wrongInput(`Not existing vector name error: ${names.find((n) => n !== '') ?? ''}`);
    }
    value = (value as Record<string, unknown>)[''];
  }
  if (!Array.isArray(value)) throw formatError(`${what}: invalid type, expected a vector`);
  if (value.length !== dim) {
    throw wrongInput(`Vector dimension error: expected dim: ${dim}, got ${value.length}`);
  }
  const vector = new Float32Array(dim);
  // Stays 0 while every component is finite as a float32; one infinite one makes it NaN.
  let nonFinite = 0;
  for (let i = 0; i < dim; i++) {
    const x = value[i];
    if (typeof x !== 'number') throw formatError(`${what}: invalid type, expected f32`);
    vector[i] = x;
    nonFinite += vector[i]! * 0;
  }
  // Infinite as read (1e400), or beyond float32 (1e39): scores would be NaN or infinite.
  if (nonFinite !== 0) {
    const i = vector.findIndex((x) => !Number.isFinite(x));
    throw formatError(
      `${what}[${i}]: number out of range for f32 (${String(value[i])}): components must be finite`,
    );
  }
  return vector;
}

/** What part of the payload a read returns. */
export type PayloadSelection = boolean | { mode: 'include' | 'exclude'; paths: JsonPath[] };

function payloadPaths(list: unknown) {
  if (!Array.isArray(list)) throw formatError('with_payload: expected a list of keys');
  return list.map(parseJsonPath);
}

/** `with_payload`: a boolean, a list of keys, or `{include}` / `{exclude}`. */
export function readWithPayload(body: Body, fallback: boolean): PayloadSelection {
  const value = optional(body, 'with_payload');
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return { mode: 'include', paths: payloadPaths(value) };
  if (typeof value === 'object') {
    const selector = value as Body;
    const keys = Object.keys(selector);
    if (keys.length !== 1 || (keys[0] !== 'include' && keys[0] !== 'exclude')) {
      throw formatError(
        'with_payload: data did not match any variant of untagged enum WithPayloadInterface',
      );
    }
    if (selector.include !== undefined)
      return { mode: 'include', paths: payloadPaths(selector.include) };
    if (selector.exclude !== undefined)
      return { mode: 'exclude', paths: payloadPaths(selector.exclude) };
  }
  throw formatError(
    'with_payload: data did not match any variant of untagged enum WithPayloadInterface',
  );
}

/**
 * `with_vector`, or its alias `with_vectors` (Qdrant's serde alias; both at once is serde's
 * duplicate field): a boolean, or a list of vector names, where "" is this engine's one
 * vector and any other name does not exist.
 */
export function readWithVector(body: Body, fallback: boolean): boolean {
  const singular = optional(body, 'with_vector');
  const plural = optional(body, 'with_vectors');
  if (body.with_vector !== undefined && body.with_vectors !== undefined) {
    throw formatError('duplicate field `with_vector`');
  }
  const value = singular ?? plural;
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    for (const name of value) {
      if (typeof name !== 'string') throw formatError('with_vector: expected a list of names');
      if (name !== '') throw wrongInput(`Not existing vector name error: ${name}`);
    }
    return value.length > 0;
  }
  throw formatError('with_vector: data did not match any variant of untagged enum WithVector');
}
