/**
 * Point ids and the `__svc_` payload keys: validation on the way in, the two
 * attested keys re-stamped from the credential on every mutation, and other
 * internal keys stripped from reads.
 */
import type { AuthContext } from '../../auth/authenticate.js';
import {
  InvalidPointId,
  PointPayloadTooLarge,
  ReservedField,
  VectorValidationError,
} from '../../errors/catalogue.js';

/** Payload keys that record who wrote a point. */
export const AGENT_KEY = '__svc_agent_id';
/** See {@link AGENT_KEY}. */
export const DEPLOYMENT_KEY = '__svc_deployment_id';

/** Largest payload of one point, serialised. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

const RESERVED_PREFIX = '__svc_';
const UUID =
  /^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$/;

/** True for an unsigned integer or a UUID, the two id forms points take. */
export function isPointId(id: unknown): boolean {
  if (typeof id === 'number') return Number.isInteger(id) && id >= 0;
  return typeof id === 'string' && UUID.test(id);
}

/** Throws 400 INVALID_POINT_ID unless `id` is a point id. */
export function checkPointId(id: unknown, field: string): void {
  if (!isPointId(id)) {
    throw new InvalidPointId(
      `${field} must be an unsigned integer or a UUID, got ${JSON.stringify(id) ?? 'nothing'}.`,
      { fields: { field } },
    );
  }
}

/** Checks every id of an `ids`/`points` list. */
export function checkPointIds(ids: unknown, field: string): void {
  if (!Array.isArray(ids)) {
    throw new VectorValidationError(`${field} must be an array of point ids.`, {
      fields: { field },
    });
  }
  ids.forEach((id, i) => checkPointId(id, `${field}[${i}]`));
}

/** True for keys callers may not send; the attested pair is always accepted (and ignored). */
function isAttested(key: string): boolean {
  return key === AGENT_KEY || key === DEPLOYMENT_KEY;
}

/**
 * The caller's payload without the attested keys (they are ignored on
 * input), after refusing other `__svc_` keys and payloads over 64 KB.
 * `rawBytes`, when known, is an upper bound of the payload's size and spares
 * serialising small points again.
 */
export function cleanPayload(
  payload: unknown,
  field: string,
  rawBytes?: number,
): Record<string, unknown> {
  if (payload === undefined || payload === null) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    throw new VectorValidationError(`${field} must be an object.`, { fields: { field } });
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (isAttested(key)) continue;
    if (key.startsWith(RESERVED_PREFIX)) {
      throw new ReservedField(`${field}.${key}: keys starting ${RESERVED_PREFIX} are reserved.`, {
        fields: { field: `${field}.${key}` },
      });
    }
    out[key] = value;
  }
  if (rawBytes === undefined || rawBytes > MAX_PAYLOAD_BYTES) {
    const bytes = Buffer.byteLength(JSON.stringify(out));
    if (bytes > MAX_PAYLOAD_BYTES) {
      throw new PointPayloadTooLarge(`${field} is ${bytes} bytes; one payload may be 64 KB.`, {
        fields: { field, max: MAX_PAYLOAD_BYTES },
      });
    }
  }
  return out;
}

/** Checks a list of payload keys to delete; the attested pair is dropped, not deleted. */
export function cleanKeyList(keys: unknown, field: string): string[] {
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
    throw new VectorValidationError(`${field} must be an array of strings.`, { fields: { field } });
  }
  return (keys as string[]).filter((key, i) => {
    if (isAttested(key)) return false;
    if (key.startsWith(RESERVED_PREFIX)) {
      throw new ReservedField(`${field}[${i}]: keys starting ${RESERVED_PREFIX} are reserved.`, {
        fields: { field: `${field}[${i}]` },
      });
    }
    return true;
  });
}

/**
 * The attested keys for a write by `caller`: both set for a key minted for a
 * deployment, both null otherwise. The contract sets them together, so a key
 * carrying only one of the two ids (never minted that way) counts as a user key.
 */
export function attestation(caller: AuthContext): Record<string, string | null> {
  const { agentId, deploymentId } = caller.key;
  const attested = Boolean(agentId && deploymentId);
  return {
    [AGENT_KEY]: attested ? agentId : null,
    [DEPLOYMENT_KEY]: attested ? deploymentId : null,
  };
}

const INTERNAL_KEY = /"__svc_(?!agent_id"|deployment_id")/;
const PAYLOAD_OBJECT = '"payload":{';
const AGENT_MEMBER = `"${AGENT_KEY}":`;
const DEPLOYMENT_MEMBER = `"${DEPLOYMENT_KEY}":`;

/** True when an engine response may hold internal keys that must not be shown. */
export function mayHoldInternalKeys(text: string): boolean {
  return INTERNAL_KEY.test(text);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) count++;
  return count;
}

/**
 * True when an engine response may hold a point payload without the
 * attested keys: fewer of them than payload objects. A merge or key delete
 * by a user key stamps both null, and a merge deletes keys it sets to null
 * (Qdrant's rule, the engine's too), so such a point is stored without them.
 */
export function mayLackAttestedKeys(text: string): boolean {
  const payloads = occurrences(text, PAYLOAD_OBJECT);
  if (payloads === 0) return false;
  return (
    occurrences(text, AGENT_MEMBER) < payloads || occurrences(text, DEPLOYMENT_MEMBER) < payloads
  );
}

/**
 * Which attested keys a read's `with_payload` returns: every key for true
 * (or absent: a payload object came back, so the route's default returns
 * payloads); those listed for a list or `{include}`; those not listed for
 * `{exclude}`.
 */
export function attestedKeysSelected(withPayload: unknown): (key: string) => boolean {
  if (withPayload === true || withPayload === undefined) return () => true;
  const listed = (value: unknown): string[] =>
    Array.isArray(value)
      ? value.filter((k) => typeof k === 'string')
      : typeof value === 'string'
        ? [value]
        : [];
  if (Array.isArray(withPayload)) return (key) => withPayload.includes(key);
  if (typeof withPayload === 'object' && withPayload !== null) {
    const selector = withPayload as Record<string, unknown>;
    if ('include' in selector) return (key) => listed(selector.include).includes(key);
    if ('exclude' in selector) return (key) => !listed(selector.exclude).includes(key);
  }
  return () => false;
}

/**
 * Puts the attested keys, null, into every point payload in `value` that
 * lacks them and whose read selected them: a point stored without them was
 * last written by a user key, and the contract returns them on every read.
 */
export function fillAttestedKeys(value: unknown, selected: (key: string) => boolean): void {
  if (Array.isArray(value)) {
    for (const item of value) fillAttestedKeys(item, selected);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const payload = record.payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const target = payload as Record<string, unknown>;
    for (const key of [AGENT_KEY, DEPLOYMENT_KEY]) {
      if (!(key in target) && selected(key)) target[key] = null;
    }
  }
  if ('points' in record) fillAttestedKeys(record.points, selected);
  if ('result' in record) fillAttestedKeys(record.result, selected);
}

/** Removes internal `__svc_` keys (not the attested pair) from every point payload in `value`. */
export function stripInternalKeys(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) stripInternalKeys(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const payload = record.payload;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    for (const key of Object.keys(payload)) {
      if (key.startsWith(RESERVED_PREFIX) && !isAttested(key)) {
        delete (payload as Record<string, unknown>)[key];
      }
    }
  }
  if ('points' in record) stripInternalKeys(record.points);
  if ('result' in record) stripInternalKeys(record.result);
}
