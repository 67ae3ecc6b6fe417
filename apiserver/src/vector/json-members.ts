/**
 * The top-level members of one point's JSON text, found without parsing
 * their values. An upsert's bytes are nearly all vectors, which the gateway
 * never needs to read: it parses `id` and `payload` (small) and copies every
 * other member's bytes to the engine as they came, which the engine parses
 * anyway. Parsing and re-serialising vectors was most of the gateway's CPU on
 * an upsert.
 *
 * The same walk finds the elements of an array without parsing them
 * ({@link arrayElements}; search-coalescer.ts splits batch answers with it).
 *
 * The walk checks the structure (an object of `"name": value` members,
 * brackets that match, strings that end); the tokens inside a copied value
 * are the engine's to read, and its refusal of malformed ones is mapped to
 * MALFORMED_JSON like the gateway's own.
 */
import { MalformedJson } from '../errors/catalogue.js';

/** Where a value's bytes are in the text holding it. */
export interface ElementRange {
  start: number;
  end: number;
}

/** One member: its name and where its value's bytes are in the point's text. */
export interface PointMember extends ElementRange {
  name: string;
}

/** JSON's quote and backslash bytes. */
export const QUOTE = 0x22;
/** See {@link QUOTE}. */
export const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Bytes the value walk must stop at; every other byte is skipped in a tight loop. */
const STRUCTURAL = new Uint8Array(256);
for (const b of [QUOTE, COMMA, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) {
  STRUCTURAL[b] = 1;
}

/**
 * The index of the `]` closing the array that opens at `open` when that
 * array holds nothing but scalars without quotes (a dense vector: numbers,
 * commas, spaces), found with native searches instead of a byte loop; -1
 * when it holds strings, objects or arrays, or does not close within `buf`.
 */
export function plainArrayEnd(buf: Uint8Array, open: number): number {
  const close = plainRunEnd(buf, open + 1);
  return close < 0 ? -1 : close;
}

/**
 * From `from`, inside an array of plain scalars (see {@link plainArrayEnd}):
 * the index of the `]` that closes it; -1 when `buf` ends first with nothing
 * but plain bytes (the array goes on in the next chunk); -2 when a string,
 * object or array comes first.
 */
export function plainRunEnd(buf: Uint8Array, from: number): number {
  const close = buf.indexOf(CLOSE_ARRAY, from);
  const end = close === -1 ? buf.length : close;
  // Searched from `from` rather than in a view up to `end`: a view is an allocation per
  // vector, and what follows a vector (the next member, the next point) soon holds each byte.
  if (occursBefore(buf, OPEN_ARRAY, from, end)) return -2;
  if (occursBefore(buf, OPEN_OBJECT, from, end)) return -2;
  if (occursBefore(buf, QUOTE, from, end)) return -2;
  return close;
}

/** Whether `byte` occurs in `buf` from `from` on, before `end`. */
function occursBefore(buf: Uint8Array, byte: number, from: number, end: number): boolean {
  const at = buf.indexOf(byte, from);
  return at !== -1 && at < end;
}

/** Whether `b` is JSON whitespace. */
export function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function malformed(reason: string): MalformedJson {
  return new MalformedJson(`The body is not valid JSON: ${reason}.`);
}

/** Index after the string that starts at `i` (a quote); throws when it does not end. */
function skipString(raw: Uint8Array, i: number): number {
  // Each quote is found natively; it ends the string unless an odd run of backslashes escapes it.
  for (let from = i + 1; ;) {
    const quote = raw.indexOf(QUOTE, from);
    if (quote === -1) throw malformed('a string does not end');
    let k = quote;
    while (k > i && raw[k - 1] === BACKSLASH) k--;
    if ((quote - k) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

function skipSpace(raw: Uint8Array, i: number): number {
  while (i < raw.length && isSpace(raw[i]!)) i++;
  return i;
}

/**
 * Index after the value that starts at `i`: up to the `,`, `}` or `]` that
 * ends it at its container's level. Nested brackets must match.
 */
function skipValue(raw: Uint8Array, i: number): number {
  // Made at the first nested bracket: most values (numbers, strings, vectors) have none.
  let stack: number[] | null = null;
  const n = raw.length;
  while (i < n) {
    const b = raw[i]!;
    if (STRUCTURAL[b] === 0) {
      i++;
      continue;
    }
    if (b === QUOTE) {
      i = skipString(raw, i);
      continue;
    }
    if (b === OPEN_ARRAY) {
      // A dense vector is skipped whole: nothing inside it can end the value.
      const end = plainArrayEnd(raw, i);
      if (end !== -1) {
        i = end + 1;
        continue;
      }
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      (stack ??= []).push(b === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY);
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      if (stack === null || stack.length === 0) return i; // The container's own close.
      if (stack.pop() !== b) throw malformed('brackets do not match');
    } else if (stack === null || stack.length === 0) {
      return i; // A comma at the point's own level.
    }
    i++;
  }
  throw malformed('a point ends early');
}

/** The names points nearly always have, as the bytes of their quoted text. */
const COMMON_NAMES = ['id', 'vector', 'payload'].map((name) => ({
  name,
  quoted: Buffer.from(JSON.stringify(name)),
}));

/** The name whose quoted text is `raw[start, end)`: a common one without decoding, else decoded. */
function memberName(raw: Uint8Array, start: number, end: number): string {
  for (const { name, quoted } of COMMON_NAMES) {
    if (quoted.length !== end - start) continue;
    let k = 1;
    while (k < quoted.length - 1 && raw[start + k] === quoted[k]) k++;
    if (k === quoted.length - 1) return name;
  }
  return JSON.parse(
    Buffer.from(raw.buffer, raw.byteOffset + start, end - start).toString('utf8'),
  ) as string;
}

/**
 * The members of the JSON object in `raw`, in order (a name sent twice
 * appears twice; the caller keeps the last, as JSON.parse does). Values are
 * trimmed of surrounding whitespace. Throws 400 MALFORMED_JSON when `raw`
 * is not an object of members.
 */
export function pointMembers(raw: Uint8Array): PointMember[] {
  const members: PointMember[] = [];
  let i = skipSpace(raw, 0);
  if (raw[i] !== OPEN_OBJECT) throw malformed('a point must be an object');
  i = skipSpace(raw, i + 1);
  if (raw[i] === CLOSE_OBJECT) return checkEnd(raw, i + 1, members);
  for (;;) {
    if (raw[i] !== QUOTE) throw malformed('expected a member name in a point');
    const nameEnd = skipString(raw, i);
    const name = memberName(raw, i, nameEnd);
    i = skipSpace(raw, nameEnd);
    if (raw[i] !== COLON) throw malformed('expected ":" in a point');
    const start = skipSpace(raw, i + 1);
    const after = skipValue(raw, start);
    let end = after;
    while (end > start && isSpace(raw[end - 1]!)) end--;
    if (end === start) throw malformed(`member ${name} of a point has no value`);
    members.push({ name, start, end });
    i = after;
    if (raw[i] === CLOSE_OBJECT) return checkEnd(raw, i + 1, members);
    if (raw[i] !== COMMA) throw malformed('a "]" closes nothing');
    i = skipSpace(raw, i + 1); // Past the comma.
  }
}

/**
 * The elements of the JSON array whose `[` is at `open`, in order, found
 * without parsing them (each trimmed of whitespace), and the index after its
 * `]`; throws 400 MALFORMED_JSON when the array's structure is broken.
 */
export function arrayElements(
  raw: Uint8Array,
  open: number,
): { elements: ElementRange[]; end: number } {
  if (raw[open] !== OPEN_ARRAY) throw malformed('expected an array');
  const elements: ElementRange[] = [];
  let i = skipSpace(raw, open + 1);
  if (raw[i] === CLOSE_ARRAY) return { elements, end: i + 1 };
  for (;;) {
    const after = skipValue(raw, i);
    let end = after;
    while (end > i && isSpace(raw[end - 1]!)) end--;
    if (end === i) throw malformed('an array has an empty element');
    elements.push({ start: i, end });
    if (raw[after] === CLOSE_ARRAY) return { elements, end: after + 1 };
    if (raw[after] !== COMMA) throw malformed('an array is not closed by "]"');
    i = skipSpace(raw, after + 1);
  }
}

function checkEnd(raw: Uint8Array, i: number, members: PointMember[]): PointMember[] {
  if (skipSpace(raw, i) !== raw.length) throw malformed('unexpected data after a point');
  return members;
}
