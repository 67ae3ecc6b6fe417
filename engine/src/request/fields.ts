/**
 * Readers of request fields with Qdrant's errors: a wrong type is a 400 format error
 * (serde), a value out of range a 422 (validator). `null` counts as absent, as serde's
 * `Option` does.
 */
import type { Distance } from '../distance.js';
import { preprocess } from '../distance.js';
import { formatError, validationError, wrongInput } from '../errors.js';
import { parseJsonPath } from '../json-path.js';
import type { JsonObject, JsonPath } from '../json-path.js';

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

/** An unsigned integer field with a default, at least `min`. */
export function readCount(body: Body, key: string, fallback: number, min = 0): number {
  const value = optional(body, key);
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw formatError(`${key}: invalid value ${JSON.stringify(value)}, expected usize`);
  }
  if (value < min)
    throw validationError(`${key}: value ${value} invalid, must be ${min} or larger`);
  return value;
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
  return value;
}

/** A payload: an object, or null when absent. */
export function readPayload(value: unknown, what: string): JsonObject | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw formatError(`${what}: invalid type, expected a payload object`);
  }
  return value as JsonObject;
}

/**
 * A dense vector of the collection's size, as float32 and preprocessed for its distance.
 * A `{"": [...]}` map names the one unnamed vector.
 */
export function readVector(raw: unknown, dim: number, distance: Distance, what: string) {
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
  for (let i = 0; i < dim; i++) {
    const x = value[i];
    if (typeof x !== 'number') throw formatError(`${what}: invalid type, expected f32`);
    vector[i] = x;
  }
  return preprocess(distance, vector);
}

/** What part of the payload a read returns. */
export type PayloadSelection = boolean | { mode: 'include' | 'exclude'; paths: JsonPath[] };

/** `with_payload`: a boolean, a list of keys, or `{include}` / `{exclude}`. */
export function readWithPayload(body: Body, fallback: boolean): PayloadSelection {
  const value = optional(body, 'with_payload');
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  const paths = (list: unknown) => {
    if (!Array.isArray(list)) throw formatError('with_payload: expected a list of keys');
    return list.map(parseJsonPath);
  };
  if (Array.isArray(value)) return { mode: 'include', paths: paths(value) };
  if (typeof value === 'object') {
    const selector = value as Body;
    if (selector.include !== undefined) return { mode: 'include', paths: paths(selector.include) };
    if (selector.exclude !== undefined) return { mode: 'exclude', paths: paths(selector.exclude) };
  }
  throw formatError(
    'with_payload: data did not match any variant of untagged enum WithPayloadInterface',
  );
}

/** `with_vector`: a boolean, or a list of names where "" is the vector. */
export function readWithVector(body: Body, fallback: boolean): boolean {
  const value = optional(body, 'with_vector');
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.includes('');
  throw formatError('with_vector: data did not match any variant of untagged enum WithVector');
}
