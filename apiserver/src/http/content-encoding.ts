/**
 * Request bodies are read as they are sent, never decoded: a body declared with a content coding
 * (`Content-Encoding: gzip`, `br`, `deflate`, …) is refused with 415 by both front doors, where it
 * was once read as if plain (gzip bytes parsed as JSON, a `br` body taken as text). RFC 9110
 * §15.5.16: the 415 carries `Accept-Encoding: identity`, the one coding a request body may have.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The `Accept-Encoding` header a refusal carries: only unencoded request bodies are read. */
export const ACCEPTED_REQUEST_ENCODING = { 'Accept-Encoding': 'identity' } as const;

/**
 * The content codings, other than `identity`, a request with a body declares (lower case, in the
 * order sent); empty when it declares none or has no body.
 */
export function requestBodyCodings(headers: IncomingHttpHeaders): string[] {
  const declared = headers['content-encoding'];
  if (declared === undefined) return [];
  const hasBody =
    Number(headers['content-length'] || 0) > 0 || headers['transfer-encoding'] !== undefined;
  if (!hasBody) return [];
  return declared
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}
