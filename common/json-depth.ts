/**
 * How deeply JSON nests objects and arrays, found on the raw bytes before anything parses
 * them. Qdrant's parser (serde_json) refuses a body nested deeper than
 * {@link MAX_JSON_DEPTH} levels, and so do the engine (engine/src/http/json-body.ts) and the
 * vector gateway in front of it (apiserver/src/vector/json-limits.ts): the limit
 * keeps every recursive step after parsing (payload clones, filters, the log's encoder)
 * far from the stack's end, and a body of 60 MB of `[` from costing JSON.parse a minute
 * and gigabytes. Recovery checks log records the same way before replaying them.
 *
 * The scan reads short runs of bytes in JavaScript and jumps over long ones (a vector's
 * digits, a long string) with `Buffer.indexOf` (native memchr): read byte by byte in
 * JavaScript it would cost a tenth to a third of what JSON.parse takes on an upsert of
 * float vectors; this way, a few percent.
 */

/**
 * The deepest a request body may nest objects and arrays: serde_json's recursion limit
 * (128, counted down before each level is entered, so the 128th level is refused).
 */
export const MAX_JSON_DEPTH = 127;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The bytes the scan stops at, by what they do: 1 opens a level, 2 closes one, 3 a string. */
const STRUCTURE = new Uint8Array(256);
STRUCTURE[0x5b] = STRUCTURE[0x7b] = 1; // [ {
STRUCTURE[0x5d] = STRUCTURE[0x7d] = 2; // ] }
STRUCTURE[QUOTE] = 3;
const STRUCTURAL_BYTES = [0x5b, 0x7b, 0x5d, 0x7d, QUOTE];
/**
 * Bytes read one by one in JavaScript before the scan jumps natively: a call into native
 * code costs about as much as reading a few dozen bytes here, so short keys and values
 * are read here and long runs (a vector's digits, a long string) natively.
 */
const SHORT_RUN = 48;

/**
 * The byte offset of the first `[` or `{` that opens level `limit + 1`, or -1 when the
 * JSON nests no deeper than `limit`. Brackets inside strings do not count. The bytes need
 * not be valid JSON: whatever is malformed is left for JSON.parse to report.
 */
export function depthExceededAt(buf: Uint8Array, limit = MAX_JSON_DEPTH): number {
  const end = buf.length;
  let depth = 0;
  let at = 0;
  while (at < end) {
    let kind = 0;
    const shortEnd = Math.min(end, at + SHORT_RUN);
    while (at < shortEnd && (kind = STRUCTURE[buf[at]!]!) === 0) at++;
    if (kind === 0) {
      at = nextStructural(buf, at);
      if (at >= end) return -1;
      kind = STRUCTURE[buf[at]!]!;
    }
    if (kind === 1) {
      if (++depth > limit) return at;
      at++;
    } else if (kind === 2) {
      depth--;
      at++;
    } else {
      const close = closingQuote(buf, at);
      if (close < 0) return -1;
      at = close + 1;
    }
  }
  return -1;
}

/** The first structural byte at or after `from`, or the length when there is none. */
function nextStructural(buf: Uint8Array, from: number): number {
  let first = buf.length;
  for (const byte of STRUCTURAL_BYTES) {
    const found = buf.indexOf(byte, from);
    if (found >= 0 && found < first) first = found;
  }
  return first;
}

/** The quote that ends the string opening at `open`, or -1 when it never ends. */
function closingQuote(buf: Uint8Array, open: number): number {
  const end = buf.length;
  let at = open + 1;
  const shortEnd = Math.min(end, at + SHORT_RUN);
  while (at < shortEnd) {
    const byte = buf[at]!;
    if (byte === QUOTE) return at;
    at += byte === BACKSLASH ? 2 : 1;
  }
  // A long string: find quotes natively, skipping those escaped by an odd run of backslashes.
  let quote = at - 1;
  for (;;) {
    quote = buf.indexOf(QUOTE, quote + 1);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (quote - 1 - backslashes > open && buf[quote - 1 - backslashes] === BACKSLASH) {
      backslashes++;
    }
    if (backslashes % 2 === 0) return quote;
  }
}
