/**
 * Point ids as Qdrant has them: an unsigned integer or a UUID. UUIDs are accepted in any
 * of the forms Rust's `uuid` crate parses (hyphenated, simple, braced, urn) and always
 * returned hyphenated and lowercase, so one point has exactly one key.
 */
import { formatError } from './errors.js';

/** A normalised point id: a safe non-negative integer or a lowercase hyphenated UUID. */
export type PointId = number | string;

const HEX32 = /^[0-9a-fA-F]{32}$/;

/** Parses a UUID in any accepted form into its normalised form, or undefined. */
export function normaliseUuid(text: string): string | undefined {
  let body = text;
  if (body.length === 45 && body.slice(0, 9).toLowerCase() === 'urn:uuid:') body = body.slice(9);
  else if (body.length === 38 && body.startsWith('{') && body.endsWith('}')) {
    body = body.slice(1, -1);
  }
  let hex: string;
  if (body.length === 36) {
    if (body[8] !== '-' || body[13] !== '-' || body[18] !== '-' || body[23] !== '-') {
      return undefined;
    }
    hex = body.slice(0, 8) + body.slice(9, 13) + body.slice(14, 18) + body.slice(19, 23);
    hex += body.slice(24);
  } else if (body.length === 32) hex = body;
  else return undefined;
  if (!HEX32.test(hex)) return undefined;
  hex = hex.toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Reads a point id from JSON. Integers beyond 2^53-1 cannot be told apart once JSON.parse
 * has read them, so they are refused rather than silently confused with a neighbour.
 */
export function parsePointId(value: unknown): PointId {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) {
      if (!Number.isSafeInteger(value)) {
        throw formatError(`point id ${value} is above 2^53-1, which this engine does not support`);
      }
      return value;
    }
    throw formatError(
      `data did not match any variant of untagged enum ExtendedPointId: ${String(value)} is not an unsigned integer or a UUID`,
    );
  }
  if (typeof value === 'string') {
    const uuid = normaliseUuid(value);
    if (uuid !== undefined) return uuid;
    throw formatError(`Unable to parse UUID: ${value}`);
  }
  throw formatError(
    `data did not match any variant of untagged enum ExtendedPointId: expected an unsigned integer or a UUID string`,
  );
}

/** Orders ids as Qdrant's scroll does: every integer before every UUID, UUIDs as 128-bit numbers. */
export function comparePointIds(a: PointId, b: PointId): number {
  if (typeof a === 'number') {
    if (typeof b === 'number') return a - b;
    return -1;
  }
  if (typeof b === 'number') return 1;
  // Lowercase hex of a fixed width sorts like the number it spells.
  return a < b ? -1 : a > b ? 1 : 0;
}
