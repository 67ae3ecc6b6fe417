/**
 * One upsert point as the gateway forwards it: its members' bytes as sent,
 * with only `id` and `payload` parsed, and the payload cleaned, checked
 * against the payload schema and stamped with the attested keys. Parsing and
 * re-serialising vectors was most of the gateway's CPU on an upsert.
 */
import type { WriteCheck } from '../schema/enforcement.js';
import type { PointId } from '../schema/scan.js';
import { checkPointId, cleanPayload, MAX_PAYLOAD_BYTES } from './payload-keys.js';
import { pointMembers, type PointMember } from './point-members.js';
import { parse } from './upsert-scanner.js';

const COMMA = Buffer.from(',');
const OPEN_POINT = Buffer.from('{');
const PAYLOAD_MEMBER = Buffer.from('"payload":');
const CLOSE_POINT = Buffer.from('}');

/** The attested keys of one request: as an object, and as `"k":v,"k":v` bytes to splice in. */
export interface Stamp {
  record: Record<string, string | null>;
  members: Buffer;
}

/** The stamp of one request's attested keys. */
export function stampOf(record: Record<string, string | null>): Stamp {
  return { record, members: Buffer.from(JSON.stringify(record).slice(1, -1)) };
}

/**
 * The stamped payload made without parsing it, when that is certainly the
 * same as parsing, cleaning and re-serialising it: an object of at most
 * 64 KB with no `__svc_` text and no escape anywhere (so no reserved or
 * attested key to refuse or drop, however spelled), or no payload at all.
 * The stamp goes in before the closing brace. Null for anything else (the
 * caller takes the parsing path).
 */
function splicedPayload(raw: Buffer, sent: PointMember | undefined, stamp: Stamp): Buffer | null {
  if (!sent || isNullAt(raw, sent)) return Buffer.concat([OPEN_POINT, stamp.members, CLOSE_POINT]);
  if (raw[sent.start] !== 0x7b || sent.end - sent.start > MAX_PAYLOAD_BYTES) return null;
  const body = raw.subarray(sent.start, sent.end);
  // A backslash could spell a reserved key with escapes ("\u005f_svc_..."): parse those.
  if (body.indexOf(RESERVED_TEXT) !== -1 || body.indexOf(0x5c) !== -1) return null;
  let last = body.length - 2; // Before the closing brace.
  while (
    last > 0 &&
    (body[last] === 0x20 || body[last] === 0x0a || body[last] === 0x0d || body[last] === 0x09)
  )
    last--;
  const empty = last === 0; // Only the opening brace before it.
  return Buffer.concat([
    body.subarray(0, last + 1),
    empty ? EMPTY : COMMA,
    stamp.members,
    CLOSE_POINT,
  ]);
}

function isNullAt(raw: Buffer, member: PointMember): boolean {
  return (
    member.end - member.start === 4 && raw.toString('latin1', member.start, member.end) === 'null'
  );
}

const RESERVED_TEXT = Buffer.from('"__svc_');
const EMPTY = Buffer.alloc(0);

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
 * One point as forwarded, in parts: every member's bytes as sent except
 * `payload`, which is cleaned (reserved keys, 64 KB), checked against the
 * payload schema and stamped. Only `id` and `payload` are parsed; a name sent
 * twice counts once, the last, as JSON.parse would have it.
 */
export function stampedPoint(
  raw: Buffer,
  field: string,
  stamp: Stamp,
  check: WriteCheck,
): { parts: Buffer[]; payloadBytes: number } {
  const members = new Map<string, PointMember>();
  for (const member of pointMembers(raw)) members.set(member.name, member);
  const bytesOf = (m: PointMember) => raw.subarray(m.start, m.end);
  const idMember = members.get('id');
  const id = idMember ? parse(bytesOf(idMember)) : undefined;
  checkPointId(id, `${field}.id`);
  const sent = members.get('payload');
  let stamped = check.active ? null : splicedPayload(raw, sent, stamp);
  if (!stamped) {
    const payload = sent
      ? cleanPayload(parse(bytesOf(sent)), `${field}.payload`, sent.end - sent.start)
      : {};
    check.point(id as PointId, payload);
    stamped = Buffer.from(JSON.stringify({ ...payload, ...stamp.record }));
  }
  const parts: Buffer[] = [OPEN_POINT];
  for (const [name, member] of members) {
    if (name === 'payload') continue;
    parts.push(memberPrefix(name), bytesOf(member), COMMA);
  }
  parts.push(PAYLOAD_MEMBER, stamped, CLOSE_POINT);
  return { parts, payloadBytes: stamped.length };
}
