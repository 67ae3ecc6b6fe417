/** Reads a JSON request body with a size cap, without a body-parser dependency. */
import type { Context } from 'koa';
import { JsonBodyRequired, RequestTooLarge, ValidationFailed } from '../errors/catalogue.js';

/** The largest JSON body a control-plane route accepts. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** True for `application/json` and the `+json` types (`application/merge-patch+json`). */
export function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type);
}

/**
 * The parsed JSON body; `undefined` when the request has none. A body whose
 * content type is not JSON (text/plain, a form, none at all) is 415
 * UNSUPPORTED_MEDIA_TYPE before a byte of it is read; malformed JSON is 422
 * VALIDATION_ERROR (type `json_invalid`), an oversized body 413.
 */
export async function readJsonBody(ctx: Context, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  const hasBody = declared > 0 || ctx.get('transfer-encoding') !== '';
  const type = ctx.get('content-type');
  if (hasBody && !isJsonType(type)) {
    throw new JsonBodyRequired(
      `Send the body as JSON with Content-Type: application/json, not "${type || 'none'}".`,
    );
  }
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ValidationFailed('Request validation failed', {
      fields: {
        violations: [
          { loc: ['body'], msg: `Invalid JSON: ${(err as Error).message}`, type: 'json_invalid' },
        ],
      },
    });
  }
}

function tooLarge(maxBytes: number): RequestTooLarge {
  return new RequestTooLarge(`The request body exceeds ${maxBytes} bytes.`, {
    fields: { max_bytes: maxBytes },
  });
}
