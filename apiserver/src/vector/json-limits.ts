/**
 * What the vector plane refuses in a JSON body before anything parses it
 * past the gateway, checked on the raw bytes so bodies forwarded as sent
 * (searches, upserted vectors) are covered without being parsed:
 *
 * - nesting deeper than {@link MAX_JSON_DEPTH} levels (the scan shared with the
 *   engine, common/json-depth.ts): recursive code after
 *   parsing (the gateway's walks, the engine's clones, JSON.stringify) would
 *   overflow the stack, a 500 for one request and, in the engine's log, for
 *   every later start;
 * - numbers beyond ±1.8e308 (`1e400`): JSON.parse makes them Infinity, which
 *   a vector stores (searches then score null) and JSON.stringify turns into
 *   null (a payload value silently changed).
 *
 * Both scans jump between the bytes that matter with `Buffer.indexOf`
 * (native), so the digits of a vector are read by native code only; when a
 * cheap test cannot rule a number out, the text is parsed and walked.
 */
import { depthExceededAt, MAX_JSON_DEPTH } from '../../../common/json-depth.js';
import { MalformedJson, VectorValidationError } from '../errors/catalogue.js';

/** The nesting limit (serde_json's, so Qdrant's and the engine's too), re-exported for the gateway. */
export { MAX_JSON_DEPTH };

/** Refuses (400 MALFORMED_JSON, `max`) a body nesting deeper than {@link MAX_JSON_DEPTH}. */
export function checkJsonDepth(bytes: Uint8Array, limit = MAX_JSON_DEPTH): void {
  if (depthExceededAt(bytes, limit) >= 0) throw nestingTooDeep(limit);
}

/** The refusal of a body nesting deeper than `limit`. */
export function nestingTooDeep(limit = MAX_JSON_DEPTH): MalformedJson {
  return new MalformedJson(
    `The body nests arrays and objects deeper than ${limit} levels, the most accepted.`,
    { fields: { max: limit } },
  );
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const isDigit = (b: number | undefined) => b !== undefined && b >= DIGIT_0 && b <= DIGIT_9;

/**
 * The fewest digits a number needs before its exponent or decimal point to
 * pass Number.MAX_VALUE (1.8e308) without an exponent.
 */
const OVERFLOW_DIGITS = 309;
/** Samples are this far apart: every run of {@link OVERFLOW_DIGITS} digits holds one. */
const SAMPLE_STEP = 300;

/**
 * Whether `bytes[from, to)` may hold a number that parses to ±Infinity: an
 * exponent of three digits or more that is not negative, or a run of 309
 * digits. False means certainly not; true means parse and look.
 */
export function mayHoldNonFinite(bytes: Uint8Array, from = 0, to = bytes.length): boolean {
  for (const e of [0x65, 0x45]) {
    for (let at = bytes.indexOf(e, from); at !== -1 && at < to; at = bytes.indexOf(e, at + 1)) {
      const before = bytes[at - 1];
      if (!(isDigit(before) || before === 0x2e)) continue; // Not after a mantissa: text.
      let k = at + 1;
      if (bytes[k] === 0x2b) k++; // '+'
      while (bytes[k] === DIGIT_0) k++;
      let digits = 0;
      while (k < to && isDigit(bytes[k])) {
        digits++;
        k++;
      }
      if (digits >= 3) return true;
    }
  }
  for (let at = from + SAMPLE_STEP - 1; at < to; at += SAMPLE_STEP) {
    if (!isDigit(bytes[at])) continue;
    let start = at;
    while (start > from && isDigit(bytes[start - 1])) start--;
    let end = at + 1;
    while (end < to && isDigit(bytes[end])) end++;
    if (end - start >= OVERFLOW_DIGITS - 1) return true;
  }
  return false;
}

/** The path of the first number in `value` that is not finite, or null. */
export function nonFinitePath(value: unknown, path = ''): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : path || '(body)';
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinitePath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = nonFinitePath(item, path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}

/** Refuses (400 VALIDATION_ERROR naming the field) a parsed value holding a non-finite number. */
export function checkFiniteValue(value: unknown, prefix = ''): void {
  const path = nonFinitePath(value, prefix);
  if (path !== null) {
    throw new VectorValidationError(
      `${path} is beyond the range of a 64-bit float (±1.8e308); numbers must be finite.`,
      { fields: { field: path } },
    );
  }
}

/**
 * Refuses a JSON text holding a number that parses to ±Infinity; parses it
 * only when {@link mayHoldNonFinite} cannot rule that out. Text that does
 * not parse is left to the caller's parser.
 */
export function checkFiniteNumbers(bytes: Uint8Array, prefix = ''): void {
  if (!mayHoldNonFinite(bytes)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
  } catch {
    return;
  }
  checkFiniteValue(parsed, prefix);
}
