/**
 * Forwards one request of a point route to the engine: checks and reshapes
 * the body as the route says (or sends its bytes as they came when nothing
 * in them needs it), sends it under the tenant-scoped name, re-stamps where
 * the route must, and shapes the engine's answer for the caller.
 */
import type { AuthContext } from '../../auth/authenticate.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { EngineResponse } from '../engine-client.js';
import type { Engines } from '../engines.js';
import { changesOf, type MoveGate } from '../collections/move-gate.js';
import { engineFailure } from '../engine-errors.js';
import { looksLikeObject, parseJsonObject } from '../json-body.js';
import { BACKSLASH } from '../json-members.js';
import type { WriteCheck } from '../schema/enforcement.js';
import type { SchemaService } from '../schema/service.js';
import type { Body, PointRoute } from './forwarding-routes.js';
import { checkPaging, pagingMayExceed } from './paging.js';
import {
  attestation,
  attestedKeysSelected,
  fillAttestedKeys,
  mayHoldInternalKeys,
  mayLackAttestedKeys,
  stripInternalKeys,
} from './payload-keys.js';

/**
 * Whether a body can go to the engine as it came: the route changes nothing
 * in it (or nothing this body contains), and it is an object if it is JSON
 * at all (the engine's refusal of malformed JSON maps to MALFORMED_JSON).
 * Parsing and re-serialising a search's vector costs more than the rest of
 * the gateway's own work on it.
 */
function forwardsAsSent(route: PointRoute, bytes: Buffer): boolean {
  if (route.schemaCheck || route.restamp) return false;
  if (route.prepare && !route.parseWhen) return false;
  if (!looksLikeObject(bytes)) return false;
  if (!route.parseWhen) return true;
  // The rewrite is decided on the parsed document, never on how the bytes spell a name.
  if (bytes.includes(BACKSLASH)) return false;
  return !route.parseWhen.some((text) => bytes.includes(text));
}

/** A forwarding route's request, however it arrived: path parameters, query string, body. */
export interface ForwardRequest {
  params: Record<string, string>;
  querystring: string;
  /** The body's bytes, read by the caller when the route has one. */
  bytes: Buffer | undefined;
}

/** The engine's answer to a forwarded request and the payload schema check of a write. */
export interface Forwarded {
  res: EngineResponse;
  check: WriteCheck | null;
  /** The body as forwarded: parsed when the gateway parsed it, else its bytes. */
  sent: Body | Buffer | undefined;
}

/**
 * Checks and reshapes one request of `route`, sends it to the engine under
 * the tenant's engine name (then re-stamps, for the routes that must), and
 * returns the engine's answer; an engine error is thrown as the contract's.
 */
export async function forwardRequest(
  request: ForwardRequest,
  caller: AuthContext,
  resolved: VectorCollectionDoc,
  route: PointRoute,
  engines: Engines,
  schemas: SchemaService,
  /** Holds and logs writes of a collection being moved between regions. */
  moves?: MoveGate,
): Promise<Forwarded> {
  const doc = route.changes && moves ? await moves.forWrite(resolved) : resolved;
  const { engine, searches } = engines.forDoc(doc);
  const base = `/collections/${doc.engineName}`;
  const path = `${base}${route.enginePath(request.params)}`;
  let body: Body | undefined;
  let asSent: Buffer | undefined;
  const bytes = request.bytes;
  if (bytes) {
    if (forwardsAsSent(route, bytes)) asSent = bytes;
    else {
      body = parseJsonObject(bytes);
      route.prepare?.(body, caller, doc);
    }
  }
  if (route.paging) {
    if (body) checkPaging(route.paging, body);
    else if (asSent && pagingMayExceed(asSent)) checkPaging(route.paging, parseJsonObject(asSent));
  }
  const check =
    body && route.schemaCheck
      ? await schemas.payloadWriteCheck(doc, { ...body, kind: route.schemaCheck })
      : null;
  const { querystring } = request;
  const res =
    route.batchPath && (asSent ?? body)
      ? await searches.search(
          path,
          `${base}${route.batchPath}`,
          asSent ?? Buffer.from(JSON.stringify(body)),
          querystring,
        )
      : await engine.send(route.engineMethod, path, asSent ?? body, querystring);
  if (res.status >= 400) throw engineFailure(res);
  const selector = body && route.restamp?.(body);
  if (selector) {
    const stamped = await engine.send(
      'POST',
      `${base}/points/payload`,
      { payload: attestation(caller), ...selector },
      'wait=true',
    );
    if (stamped.status >= 400) throw engineFailure(stamped);
  }
  if (route.changes && doc.move && moves) {
    const changes = changesOf(route.changes, body ?? (asSent && parseJsonObject(asSent)));
    if (changes) await moves.record(doc, changes);
  }
  return { res, check, sent: body ?? asSent };
}

/** Whether the route's answer holds points, whose internal payload keys are stripped. */
export function isRead(route: PointRoute): boolean {
  return route.engineMethod === 'GET' || route.engineMethod === 'POST';
}

/**
 * The engine's answer as relayed. Reads are scanned first: internal
 * `__svc_` keys are removed, and the attested pair is put back (null) into
 * payloads stored without it (see {@link mayLackAttestedKeys}) where the
 * read's `with_payload` selected it. The common case (neither) relays the
 * engine's bytes without parsing them.
 */
export function relayedText(route: PointRoute, { res, sent }: Forwarded): string {
  if (!isRead(route) || res.status >= 300) return res.text;
  const strip = mayHoldInternalKeys(res.text);
  const fill = mayLackAttestedKeys(res.text);
  if (!strip && !fill) return res.text;
  const parsed = JSON.parse(res.text) as Body;
  if (strip) stripInternalKeys(parsed);
  if (fill)
    fillSelected(
      parsed.result,
      sent === undefined || Buffer.isBuffer(sent) ? parseSent(sent) : sent,
    );
  return JSON.stringify(parsed);
}

function parseSent(bytes: Buffer | undefined): Body {
  return bytes === undefined ? {} : parseJsonObject(bytes);
}

/** {@link fillAttestedKeys} with each search's own selector in a batch, the body's otherwise. */
function fillSelected(result: unknown, sent: Body): void {
  const searches = sent.searches;
  if (Array.isArray(searches) && Array.isArray(result)) {
    result.forEach((answer, i) => {
      const search = searches[i] as Body | undefined;
      fillAttestedKeys(answer, attestedKeysSelected(search?.with_payload));
    });
    return;
  }
  fillAttestedKeys(result, attestedKeysSelected(sent.with_payload));
}
