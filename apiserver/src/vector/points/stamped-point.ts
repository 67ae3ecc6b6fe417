/**
 * One upsert point as the gateway forwards it: its bytes as sent, with only
 * `id` and `payload` parsed, and the payload cleaned, checked against the
 * payload schema and stamped with the attested keys. Parsing and
 * re-serialising vectors was most of the gateway's CPU on an upsert.
 */
import { checkFiniteNumbers } from '../json-limits.js';
import type { WriteCheck } from '../schema/enforcement.js';
import type { PointId } from '../schema/scan.js';
import type { BatchWriter } from './batch-writer.js';
import { checkPointId, cleanPayload, isPointId, MAX_PAYLOAD_BYTES } from './payload-keys.js';
import { isSpace, pointMembers, type PointMember } from '../json-members.js';
import { checkPointShape } from './point-shape.js';
import { parse } from './upsert-scanner.js';

const COMMA = Buffer.from(',');
const OPEN_POINT = Buffer.from('{');
const PAYLOAD_MEMBER = Buffer.from('"payload":');
const CLOSE_POINT = Buffer.from('}');

/**
 * The attested keys of one request, as an object and as the bytes spliced
 * into points: `"k":v,"k":v` (into an empty payload), `,"k":v,...` (after a
 * payload's last member), `{...}` (for a null payload) and `,"payload":{...}`
 * (for a point without one).
 */
export interface Stamp {
  record: Record<string, string | null>;
  members: Buffer;
  appended: Buffer;
  object: Buffer;
  payloadMember: Buffer;
}

/** The stamp of one request's attested keys. */
export function stampOf(record: Record<string, string | null>): Stamp {
  const members = JSON.stringify(record).slice(1, -1);
  return {
    record,
    members: Buffer.from(members),
    appended: Buffer.from(`,${members}`),
    object: Buffer.from(`{${members}}`),
    payloadMember: Buffer.from(`,"payload":{${members}}`),
  };
}

/**
 * Writes the point as sent with the stamp spliced in, when that is certainly
 * the same as parsing, cleaning and re-serialising its payload: a payload
 * object of at most 64 KB with no `__svc_` text and no backslash (so no
 * reserved or attested key to refuse or drop, however spelled), a null
 * payload, or none. Returns the forwarded payload's bytes, or -1 having
 * written nothing (the caller takes the parsing path).
 */
function writeSpliced(
  raw: Buffer,
  sent: PointMember | undefined,
  stamp: Stamp,
  out: BatchWriter,
): number {
  if (sent && isNullAt(raw, sent)) {
    out.write(raw, 0, sent.start);
    out.write(stamp.object);
    out.write(raw, sent.end);
    return stamp.object.length;
  }
  let at: number;
  let insert: Buffer;
  let payloadBytes: number;
  if (!sent) {
    at = lastNonSpace(raw, raw.length - 1); // The point's closing brace.
    insert = stamp.payloadMember;
    payloadBytes = stamp.object.length;
  } else {
    if (raw[sent.start] !== 0x7b || sent.end - sent.start > MAX_PAYLOAD_BYTES) return -1;
    // A backslash could spell a reserved key with escapes ("\u005f_svc_..."): parse those.
    if (indexWithin(raw, RESERVED_TEXT, sent) !== -1 || indexWithin(raw, 0x5c, sent) !== -1) {
      return -1;
    }
    const last = lastNonSpace(raw, sent.end - 2); // Before the payload's closing brace.
    insert = last === sent.start ? stamp.members : stamp.appended;
    at = last + 1;
    payloadBytes = sent.end - sent.start + insert.length;
  }
  out.write(raw, 0, at);
  out.write(insert);
  out.write(raw, at);
  return payloadBytes;
}

/** Where `needle` first occurs inside `member`'s bytes, or -1. */
function indexWithin(raw: Buffer, needle: Buffer | number, member: PointMember): number {
  const at = raw.indexOf(needle, member.start);
  const size = typeof needle === 'number' ? 1 : needle.length;
  return at !== -1 && at + size <= member.end ? at : -1;
}

/** The index of the last byte at or before `i` that is not JSON whitespace. */
function lastNonSpace(raw: Buffer, i: number): number {
  while (i > 0 && isSpace(raw[i]!)) i--;
  return i;
}

function isNullAt(raw: Buffer, { start, end }: PointMember): boolean {
  return (
    end - start === 4 &&
    raw[start] === 0x6e && // n
    raw[start + 1] === 0x75 && // u
    raw[start + 2] === 0x6c && // l
    raw[start + 3] === 0x6c // l
  );
}

const RESERVED_TEXT = Buffer.from('"__svc_');

/** `"name":` as bytes, made once per name (points repeat the same few names). */
const memberPrefixes = new Map<string, Buffer>();
function memberPrefix(name: string): Buffer {
  let prefix = memberPrefixes.get(name);
  if (!prefix) {
    prefix = Buffer.from(`${JSON.stringify(name)}:`);
    if (memberPrefixes.size < 64) memberPrefixes.set(name, prefix);
  }
  return prefix;
}

/**
 * Writes one point as forwarded and returns its payload's bytes. The common
 * case is the point's bytes as sent with the stamp spliced into its payload.
 * Otherwise (a name sent twice, a payload under schema enforcement, or one
 * that must be read to be cleaned) the point is rebuilt from its members'
 * bytes as sent except `payload`, which is parsed, cleaned (reserved keys,
 * 64 KB), checked against the payload schema and stamped; a name sent twice
 * counts once, the last, as JSON.parse would have it. Only `id` and
 * `payload` are ever parsed (and a point whose bytes may hold a number
 * beyond a float's range, to refuse it). A refused point writes nothing.
 */
export function writeStampedPoint(
  raw: Buffer,
  /** The point's index in `points`, for error messages. */
  index: number,
  stamp: Stamp,
  check: WriteCheck,
  out: BatchWriter,
  /**
   * The size of the collection's vector: given, the point is refused unless
   * the engine will take it ({@link checkPointShape}).
   */
  vectorSize?: number,
  /** Given, the point's id is added to it. */
  ids?: PointId[],
): number {
  const list = pointMembers(raw);
  // Vectors are forwarded unparsed: a component of 1e400 must be refused here, not stored.
  checkFiniteNumbers(raw, `points[${index}]`);
  let idMember: PointMember | undefined;
  let sent: PointMember | undefined;
  let unique = true;
  for (let k = 0; k < list.length; k++) {
    const member = list[k]!;
    for (let j = 0; j < k; j++) if (list[j]!.name === member.name) unique = false;
    if (member.name === 'id') idMember = member;
    else if (member.name === 'payload') sent = member;
  }
  const id = idMember ? pointIdAt(raw, idMember) : undefined;
  if (!isPointId(id)) checkPointId(id, `points[${index}].id`);
  if (vectorSize !== undefined) checkPointShape(raw, list, id, index, vectorSize);
  ids?.push(id as PointId);
  if (unique && !check.active) {
    const payloadBytes = writeSpliced(raw, sent, stamp, out);
    if (payloadBytes !== -1) return payloadBytes;
  }
  const payload = sent
    ? cleanPayload(
        parse(raw.subarray(sent.start, sent.end)),
        `points[${index}].payload`,
        sent.end - sent.start,
      )
    : {};
  check.point(id as PointId, payload);
  const stamped = Buffer.from(JSON.stringify({ ...payload, ...stamp.record }));
  const members = new Map<string, PointMember>();
  for (const member of list) members.set(member.name, member);
  out.write(OPEN_POINT);
  for (const [name, member] of members) {
    if (name === 'payload') continue;
    out.write(memberPrefix(name));
    out.write(raw, member.start, member.end);
    out.write(COMMA);
  }
  out.write(PAYLOAD_MEMBER);
  out.write(stamped);
  out.write(CLOSE_POINT);
  return stamped.length;
}

/** The id member's value: a short run of digits read directly, anything else parsed. */
function pointIdAt(raw: Buffer, { start, end }: PointMember): unknown {
  if (end - start <= 15) {
    let value = 0;
    let k = start;
    while (k < end && raw[k]! >= 0x30 && raw[k]! <= 0x39) value = value * 10 + raw[k++]! - 0x30;
    // A leading zero is not JSON ("01"): parse it, to be refused as JSON.parse would.
    if (k === end && k > start && !(raw[start] === 0x30 && end - start > 1)) return value;
  }
  return parse(raw.subarray(start, end));
}
