/** Reads a JSON request body on the vector plane, with the contract's codes. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { MalformedJson, UpsertBodyTooLarge } from '../errors/catalogue.js';

/** The largest JSON body of a route other than upsert (which streams). */
export const MAX_JSON_BODY_BYTES = 32 * 1024 * 1024;

/** The parsed body; `{}` for an empty one, since every engine body is optional-keyed. */
export async function readJson(ctx: Context, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readText(ctx.req, maxBytes);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new MalformedJson(`The body is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

/**
 * The whole body as text. Events rather than `for await`: the async
 * iterator costs a search more CPU than parsing its body does.
 */
function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
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
    req.once('end', () =>
      resolve(
        chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'),
      ),
    );
    req.once('error', reject);
    req.once('close', () => {
      if (!req.complete) reject(new Error('The client closed the request before its end.'));
    });
  });
}

/** Like {@link readJson}, and the body must be an object. */
export async function readJsonObject(ctx: Context): Promise<Record<string, unknown>> {
  const body = await readJson(ctx);
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
