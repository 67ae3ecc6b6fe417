/**
 * Reads a JSON request body on the vector plane, with the contract's codes:
 * a declared content type that is not JSON is refused before the body is
 * read, and the body's nesting and numbers are checked on its bytes (see
 * json-limits.ts) before anything parses or forwards it.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import {
  ApiError,
  MalformedJson,
  UpsertBodyTooLarge,
  type ApiErrorOptions,
} from '../errors/catalogue.js';
import { ACCEPTED_REQUEST_ENCODING, requestBodyCodings } from '../http/content-encoding.js';
import { checkFiniteNumbers, checkJsonDepth } from './json-limits.js';

/** The largest JSON body of a route other than upsert (which streams). */
export const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

/** The parsed body; `{}` for an empty one, since every engine body is optional-keyed. */
export async function readJson(ctx: Context, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  return parseJson(await readBody(ctx, maxBytes));
}

/**
 * 415 on the vector plane: a body whose declared Content-Type is not JSON, or
 * one sent with a Content-Encoding (bodies are read as sent; that answer
 * carries `Accept-Encoding: identity`). The contract's code list has no
 * media-type code; MALFORMED_JSON ("the body is not valid JSON") is the one
 * that says what is wrong, at the status that says why. Kept here rather than
 * in the shared catalogue, whose UNSUPPORTED_MEDIA_TYPE is the control plane's.
 */
export class PlainJsonRequired extends ApiError {
  static readonly code = 'MALFORMED_JSON';
  static readonly status = 415;
  static readonly description =
    'The body was declared with a Content-Type other than JSON (application/json or application/*+json), or sent with a Content-Encoding (gzip, br, deflate, …: bodies are read as sent, and the answer says Accept-Encoding: identity).';
  constructor(message: string, options?: ApiErrorOptions) {
    super(PlainJsonRequired.status, PlainJsonRequired.code, message, options);
  }
}

/**
 * Refuses (415) a body sent with a Content-Encoding, and a declared content
 * type other than `application/json` or `application/<anything>+json`,
 * parameters aside. A body sent without a Content-Type is read as JSON: it
 * declares nothing else, and refusing it would break clients that never set
 * one for a JSON-only API.
 */
export function checkJsonBodyHeaders(headers: IncomingHttpHeaders): void {
  const codings = requestBodyCodings(headers);
  if (codings.length > 0) {
    throw new PlainJsonRequired(
      `The body is sent with Content-Encoding: ${codings.join(', ')}; send the JSON unencoded.`,
      { headers: ACCEPTED_REQUEST_ENCODING },
    );
  }
  const declared = headers['content-type'];
  if (declared === undefined) return;
  const type = declared.split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/json' || /^application\/[!#$&^_.+\w-]+\+json$/.test(type)) return;
  throw new PlainJsonRequired(
    `The body must be JSON sent as Content-Type: application/json, not ${type || 'an empty type'}.`,
  );
}

/** The body's bytes, refused with 413 past `maxBytes`. */
export async function readBody(ctx: Context, maxBytes = MAX_JSON_BODY_BYTES): Promise<Buffer> {
  return readRequestBody(ctx.req, maxBytes);
}

/**
 * {@link readBody} of a node:http request: 415 for a content type that is
 * not JSON, 413 past `maxBytes`, 400 for nesting past the limit or a number
 * beyond a float's range.
 */
export async function readRequestBody(
  req: IncomingMessage,
  maxBytes = MAX_JSON_BODY_BYTES,
): Promise<Buffer> {
  checkJsonBodyHeaders(req.headers);
  const declared = Number(req.headers['content-length'] || 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBytes(req, maxBytes);
  checkJsonDepth(bytes);
  checkFiniteNumbers(bytes);
  return bytes;
}

/** Parses body bytes; `{}` for an empty body, 400 MALFORMED_JSON for one that is not JSON. */
export function parseJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new MalformedJson(`The body is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

/** Whether body bytes start (after whitespace) with `{`: an object, if it is JSON at all. */
export function looksLikeObject(bytes: Buffer): boolean {
  for (const b of bytes) {
    if (b === 0x7b) return true;
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  }
  return false;
}

/**
 * The whole body. Events rather than `for await`: the async iterator costs
 * a search more CPU than parsing its body does.
 */
function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('The client closed the request before its end.'));
    });
  });
}

/** Like {@link readJson}, and the body must be an object. */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  return parseJsonObject(await readBody(ctx));
}

/** Like {@link parseJson}, and the body must be an object. */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  const body = parseJson(bytes);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MalformedJson('The body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

function tooLarge(maxBytes: number): UpsertBodyTooLarge {
  return new UpsertBodyTooLarge(`The request body exceeds ${maxBytes / (1024 * 1024)} MB.`, {
    fields: { max: maxBytes },
  });
}
