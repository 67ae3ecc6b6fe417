/** Reads a JSON request body with a size cap, without a body-parser dependency. */
import type { Context } from 'koa';
import { RequestTooLarge, ValidationFailed } from '../errors/catalogue.js';

/** The largest JSON body a control-plane route accepts. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The parsed JSON body; `undefined` when the request has none. Malformed JSON is
 * 422 VALIDATION_ERROR (type `json_invalid`), an oversized body 413.
 */
export async function readJsonBody(ctx: Context, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
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
