/**
 * Whether the engine will take one upserted point, decided before anything
 * is written: the gateway sends a large body in several engine requests, and
 * a point the engine refuses in a later one would leave the earlier ones
 * written. So every refusal the engine would give a point for its shape is
 * given here first, in the engine's words (engine/src/request/selectors.ts
 * and fields.ts, which word them as Qdrant does): a member other than `id`,
 * `vector` and `payload`, no `vector`, a vector that is not the collection's
 * one unnamed dense vector of its size (a named or sparse vector, a multi-
 * vector, the wrong dimension), a component that is not a number or not
 * finite as a 32-bit float, and a point id beyond 2^53-1. The refusal names
 * the point by its index in the whole body, where the engine would name its
 * index in one batch.
 *
 * A dense vector is counted without being parsed (point-shape's cost is a
 * few native searches per vector); one that may hold anything but finite
 * float32 numbers (an object, a literal, a nested array, a big exponent) is
 * parsed and checked as the engine checks it. The grammar of each number is
 * not read: a hand-written `1.2.3` or `[1,,2]` inside a vector (which no JSON
 * serialiser writes) is still found by the engine, in its batch.
 */
import { MalformedJson, type EngineError } from '../../errors/catalogue.js';
import { engineRefusal } from '../engine-errors.js';
import { isSpace, plainArrayEnd, type PointMember } from '../json-members.js';

/** The members a point may have (the engine refuses any other). */
const POINT_FIELDS = ['id', 'vector', 'payload'] as const;

/** Byte values the number walk compares against. */
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const COMMA = 0x2c;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_ARRAY = 0x5b;

/**
 * The most decimal digits before the point, exponent included, that a
 * number can have and still be certainly below a float32's largest value
 * (3.4e38): below 10^38.
 */
const SAFE_MAGNITUDE_DIGITS = 38;

/**
 * Refuses (400, as the engine would) a point that the collection's one
 * unnamed dense vector of `size` components cannot take. `members` are the
 * point's members as {@link pointMembers} found them; `id` its parsed id.
 */
export function checkPointShape(
  raw: Uint8Array,
  members: readonly PointMember[],
  id: unknown,
  index: number,
  size: number,
): void {
  const where = `points[${index}]`;
  let vector: PointMember | undefined;
  for (const member of members) {
    if (member.name === 'vector') vector = member;
    else if (member.name !== 'id' && member.name !== 'payload') {
      throw formatError(
        `${where}: unknown field \`${member.name}\`, expected one of ${POINT_FIELDS.map((f) => `\`${f}\``).join(', ')}`,
        where,
      );
    }
  }
  if (!vector) throw formatError(`${where}: missing field \`vector\``, where);
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    throw formatError(
      `point id ${id} is above 2^53-1, which this engine does not support`,
      `${where}.id`,
    );
  }
  const what = `${where}.vector`;
  const count = denseComponents(raw, vector);
  if (count === -1) checkParsedVector(parseMember(raw, vector, what), size, what);
  else if (count !== size) throw dimensionError(size, count, what);
}

/**
 * The number of components of the dense vector at `member` (`[` numbers `]`),
 * counted without parsing it; -1 when it must be parsed to be judged: it
 * holds strings, objects or arrays, a letter a number does not have (`null`,
 * `NaN`, `true`, `Infinity`: what serialisers write for a NaN or an
 * infinity), or a number that may pass a float32's range. Only native
 * searches and a few bytes around each exponent are read: a byte loop over
 * every vector (to check the number grammar too) cost about as much as the
 * rest of the point's handling.
 */
export function denseComponents(raw: Uint8Array, member: PointMember): number {
  const { start } = member;
  const end = member.end - 1;
  if (raw[start] !== OPEN_ARRAY || plainArrayEnd(raw, start) !== end) return -1;
  for (const letter of SUSPECT_LETTERS) if (occursWithin(raw, letter, start, end)) return -1;
  if (largeExponent(raw, start, end)) return -1;
  let commas = 0;
  let previous = start;
  for (let at = raw.indexOf(COMMA, start); at !== -1 && at < end; at = raw.indexOf(COMMA, at + 1)) {
    if (at - previous > SAFE_MAGNITUDE_DIGITS && longDigitRun(raw, previous, at)) return -1;
    previous = at;
    commas++;
  }
  if (end - previous > SAFE_MAGNITUDE_DIGITS && longDigitRun(raw, previous, end)) return -1;
  if (commas > 0) return commas + 1;
  for (let i = start + 1; i < end; i++) if (!isSpace(raw[i]!)) return 1;
  return 0;
}

/**
 * The first letters of the literals a vector may wrongly hold: `null`,
 * `NaN`, `Infinity`, `true`, `false` (the only letters of a number are `e`
 * and `E`).
 */
const SUSPECT_LETTERS = [...'nNItf'].map((c) => c.charCodeAt(0));

function occursWithin(raw: Uint8Array, byte: number, from: number, to: number): boolean {
  const at = raw.indexOf(byte, from);
  return at !== -1 && at < to;
}

/**
 * Whether `raw[from, to)`, numbers and commas, may hold a number in
 * exponent notation of 10^38 or more (a float32 ends at 3.4e38): a
 * non-negative exponent that, with the mantissa's digits, reaches 38.
 * False means certainly not.
 */
function largeExponent(raw: Uint8Array, from: number, to: number): boolean {
  for (const e of [0x65, 0x45]) {
    for (let at = raw.indexOf(e, from); at !== -1 && at < to; at = raw.indexOf(e, at + 1)) {
      let k = at + 1;
      if (raw[k] === MINUS) continue; // Below the mantissa.
      if (raw[k] === PLUS) k++;
      let exponent = 0;
      while (k < to && isDigit(raw[k]!) && exponent < 1e6) {
        exponent = exponent * 10 + raw[k++]! - ZERO;
      }
      let mantissa = 0;
      for (let j = at - 1; j > from && (isDigit(raw[j]!) || raw[j] === DOT); j--) mantissa++;
      if (exponent + mantissa > SAFE_MAGNITUDE_DIGITS) return true;
    }
  }
  return false;
}

/**
 * Whether `raw(from, to)`, one number between two separators, holds a run
 * of 39 digits (10^38 or more without an exponent). Read only for a number
 * that long, which serialisers do not write for a float.
 */
function longDigitRun(raw: Uint8Array, from: number, to: number): boolean {
  let run = 0;
  for (let i = from + 1; i < to; i++) {
    run = isDigit(raw[i]!) ? run + 1 : 0;
    if (run > SAFE_MAGNITUDE_DIGITS) return true;
  }
  return false;
}

/** The engine's reading of a parsed vector (readRawVector in engine/src/request/fields.ts). */
function checkParsedVector(sent: unknown, size: number, what: string): void {
  let value = sent;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const names = Object.keys(value);
    if (names.length !== 1 || names[0] !== '') {
      const name = names.find((n) => n !== '') ?? '';
      throw engineRefusal(400, `Wrong input: Not existing vector name error: ${name}`, what);
    }
    value = (value as Record<string, unknown>)[''];
  }
  if (!Array.isArray(value)) throw formatError(`${what}: invalid type, expected a vector`, what);
  if (value.length !== size) throw dimensionError(size, value.length, what);
  for (let i = 0; i < size; i++) {
    const x: unknown = value[i];
    if (typeof x !== 'number') throw formatError(`${what}: invalid type, expected f32`, what);
    if (!Number.isFinite(Math.fround(x))) {
      throw formatError(
        `${what}[${i}]: number out of range for f32 (${String(x)}): components must be finite`,
        `${what}[${i}]`,
      );
    }
  }
}

function parseMember(raw: Uint8Array, member: PointMember, what: string): unknown {
  const text = Buffer.from(raw.buffer, raw.byteOffset + member.start, member.end - member.start);
  try {
    return JSON.parse(text.toString('utf8')) as unknown;
  } catch (cause) {
    throw new MalformedJson(`The body is not valid JSON: ${what}: ${(cause as Error).message}`, {
      cause,
      fields: { field: what },
    });
  }
}

function dimensionError(size: number, got: number, what: string): EngineError {
  return engineRefusal(
    400,
    `Wrong input: Vector dimension error: expected dim: ${size}, got ${got}`,
    what,
  );
}

function isDigit(b: number): boolean {
  return b >= ZERO && b <= NINE;
}

/** The engine's refusal of a body of the wrong shape (serde's wording, as Qdrant's). */
function formatError(detail: string, field: string): EngineError {
  return engineRefusal(400, `Format error in JSON body: ${detail}`, field);
}
