/**
 * The payload schema routes, `/api/v1/schema/{collection}`: read, write
 * (compare-and-set with `If-Match`), delete, analyze and conformance. GET and
 * PUT answer the schema's `ETag`; bodies are `{result, status}`.
 */
import type { Context } from 'koa';
import type { CollectionService } from '../collections/service.js';
import { authed, resolveCollection, type VectorRouter } from '../context.js';
import type { VectorGuard } from '../guards.js';
import { readJsonObject } from '../json-body.js';
import type { StoredSchema } from './model.js';
import { parseAnalyze, parseConformance, parseIfMatch, parsePut } from './rules.js';
import type { SchemaService } from './service.js';

/** What the schema routes need. */
export interface SchemaRouteDeps {
  guard: VectorGuard;
  collections: CollectionService;
  schemas: SchemaService;
}

/** The path of the schema routes; `:collection` is the bare collection name. */
export const SCHEMA_PATH = '/api/v1/schema/:collection';

/** The public shape of a stored schema. */
export function presentSchema(collection: string, stored: StoredSchema): Record<string, unknown> {
  return {
    collection,
    schema: stored.schema,
    enforcement_mode: stored.enforcementMode,
    description: stored.description,
    version: stored.version,
    etag: stored.etag,
    created_at: stored.createdAt.toISOString(),
    updated_at: stored.updatedAt.toISOString(),
  };
}

/** Answers a stored schema with its ETag. */
function answerSchema(ctx: Context, collection: string, stored: StoredSchema): void {
  ctx.set('ETag', stored.etag);
  ctx.body = { result: presentSchema(collection, stored), status: 'ok' };
}

/** Mounts the schema routes on `router`. */
export function mountSchemaRoutes(router: VectorRouter, deps: SchemaRouteDeps): void {
  const { guard, collections, schemas } = deps;
  const collectionOf = (ctx: Context, caller: Parameters<typeof resolveCollection>[1]) =>
    resolveCollection(ctx, caller, collections, 'collection');

  router.get(
    SCHEMA_PATH,
    authed(guard, async (ctx, caller) => {
      const collection = await collectionOf(ctx, caller);
      answerSchema(ctx, collection.name, await schemas.get(collection));
    }),
  );

  router.put(
    SCHEMA_PATH,
    authed(guard, async (ctx, caller) => {
      const collection = await collectionOf(ctx, caller);
      const input = parsePut(await readJsonObject(ctx));
      const stored = await schemas.put(collection, input, parseIfMatch(ctx.get('if-match')));
      answerSchema(ctx, collection.name, stored);
    }),
  );

  router.delete(
    SCHEMA_PATH,
    authed(guard, async (ctx, caller) => {
      const collection = await collectionOf(ctx, caller);
      await schemas.remove(collection, parseIfMatch(ctx.get('if-match')));
      ctx.body = { result: true, status: 'ok' };
    }),
  );

  router.post(
    `${SCHEMA_PATH}/analyze`,
    authed(guard, async (ctx, caller) => {
      const collection = await collectionOf(ctx, caller);
      const input = parseAnalyze(await readJsonObject(ctx));
      const result = await schemas.analyze(collection, input);
      ctx.body = {
        result: { collection: collection.name, sample_size: input.sampleSize, ...result },
        status: 'ok',
      };
    }),
  );

  router.post(
    `${SCHEMA_PATH}/conformance`,
    authed(guard, async (ctx, caller) => {
      const collection = await collectionOf(ctx, caller);
      const input = parseConformance(await readJsonObject(ctx));
      const { schema, report } = await schemas.conformance(collection, input);
      ctx.body = {
        result: {
          collection: collection.name,
          schema_version: schema.version,
          mode: input.mode,
          ...report,
        },
        status: 'ok',
      };
    }),
  );
}
