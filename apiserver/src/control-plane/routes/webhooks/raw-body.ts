/** Reads a request body as bytes, refusing it past a size cap before reading more. */
import type { Context } from 'koa';
import { RequestTooLarge } from '../../../errors/catalogue.js';

/** The body of `ctx`, at most `maxBytes`; 413 REQUEST_TOO_LARGE beyond. */
export async function readRawBody(ctx: Context, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new RequestTooLarge(`The request body exceeds ${maxBytes} bytes.`, {
      fields: { max_bytes: maxBytes },
    });
  if (Number(ctx.get('content-length') || 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
