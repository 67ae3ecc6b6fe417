/**
 * Engine error bodies normalised into the contract's envelope. Qdrant answers
 * `{status: {error: "..."}}` with no code; a body that does carry a code
 * (`error.code` or `status.code`) keeps it, otherwise the code is the
 * contract's fallback for the HTTP status. Tenant-scoped names are scrubbed
 * from the message before it can reach a caller.
 */
import { EngineError } from '../errors/catalogue.js';
import type { EngineResponse } from './engine-client.js';
import { scrubEngineNames } from './error-envelope.js';

const UPSTREAM_5XX = new Set([500, 502, 503, 504]);

/** How Qdrant (serde_json) and `engine/` (JSON.parse) word a refused body. */
const BODY_ERROR = /^(Format error in JSON body|Json deserialize error):/;

/**
 * Syntax errors among those, as opposed to valid JSON of the wrong shape
 * ("invalid type", "missing field"): serde_json's and V8's wordings.
 */
const SYNTAX_ERROR =
  /JSON at position|is not valid JSON|end of JSON input|EOF while parsing|expected `|expected value|expected ident|invalid escape|invalid number|number out of range|invalid unicode|control character|key must be a string|trailing comma|trailing characters|hex escape/i;

/**
 * Valid JSON of the wrong shape, whose wording can contain a syntax marker
 * (serde's "unknown field `x`, expected `a` or `b`"): a 400 about the
 * request, not MALFORMED_JSON.
 */
const SHAPE_ERROR =
  /unknown field `|unknown variant `|missing field `|duplicate field `|invalid type:|did not match any variant/;

/**
 * Whether the engine refused the body as JSON that does not parse. The
 * gateway copies vectors to the engine without parsing them, so the engine
 * is where a malformed number inside one is found; it is still MALFORMED_JSON.
 */
export function isJsonSyntaxError(status: number, message: string): boolean {
  return (
    status === 400 &&
    BODY_ERROR.test(message) &&
    SYNTAX_ERROR.test(message) &&
    !SHAPE_ERROR.test(message)
  );
}

/** The error to throw for an engine response with status >= 400. */
export function engineFailure(res: EngineResponse): EngineError {
  let message = `The vector engine answered ${res.status}.`;
  let code: string | undefined;
  try {
    const body = JSON.parse(res.text) as {
      status?: { error?: unknown; code?: unknown } | string;
      error?: { code?: unknown; message?: unknown } | string;
    };
    const status = typeof body.status === 'object' ? body.status : undefined;
    const error = typeof body.error === 'object' ? body.error : undefined;
    if (typeof status?.error === 'string') message = status.error;
    else if (typeof error?.message === 'string') message = error.message;
    else if (typeof body.error === 'string') message = body.error;
    const rawCode = error?.code ?? status?.code;
    if (typeof rawCode === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(rawCode)) code = rawCode;
  } catch {
    // Not JSON (a proxy's HTML page, a cut body): the status alone decides.
  }
  return engineRefusal(res.status, message, undefined, code);
}

/**
 * The error the gateway answers for an engine refusal of `status` worded
 * `message`: the code the engine's body carried, else MALFORMED_JSON for a
 * body that does not parse, else the contract's fallback for the status.
 * The gateway uses it too for a refusal it gives in the engine's place, so
 * the caller gets the same answer wherever it was decided; `field`, when
 * given, names where in the request the refused value was.
 */
export function engineRefusal(
  engineStatus: number,
  message: string,
  field?: string,
  engineCode?: string,
): EngineError {
  let status = engineStatus;
  let code = engineCode;
  if (!code && isJsonSyntaxError(status, message)) code = 'MALFORMED_JSON';
  if (status === 422) status = 400; // The engine's "unprocessable" is the engine rejecting the query.
  if (status >= 500 && !UPSTREAM_5XX.has(status)) status = 502;
  if (status >= 400 && status < 500 && !EngineError.FALLBACK_CODES[status] && !code) status = 400;
  code ??= EngineError.FALLBACK_CODES[status] ?? 'UPSTREAM_ERROR';
  return new EngineError(
    status,
    code,
    scrubEngineNames(message),
    field === undefined ? undefined : { fields: { field } },
  );
}
