/**
 * The payload schema routes, `/api/v1/schema/{collection}`: read, write
 * (compare-and-set with `If-Match`), delete, analyze and conformance. GET and
 * PUT answer the schema's `ETag`; bodies are `{result, status}`.
 */
import type { Context } from 'koa';
import type { CollectionService } from '../collections/service.js';
import {
  InvalidEnforcementMode,
  InvalidMaxExamples,
  InvalidSampleSize,
  InvalidScanMode,
  SchemaNotDefined,
  SchemaVersionMismatch,
} from '../../errors/catalogue.js';
import { resolveCollection } from '../context.js';
import { readJsonObject } from '../json-body.js';
import { COLLECTION, ENGINE, SCHEMA } from '../route-errors.js';
import { vectorRoute, type VectorRoute } from '../routing.js';
import type { StoredSchema } from './model.js';
import { parseAnalyze, parseConformance, parseIfMatch, parsePut } from './rules.js';
import type { SchemaService } from './service.js';

/** What the schema routes need. */
export interface SchemaRouteDeps {
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

const SCHEMA_RECORD =
  '{collection, schema, enforcement_mode, description, version, etag, created_at, updated_at}';

/** The schema routes, in the order they are mounted. */
export function schemaRoutes(deps: SchemaRouteDeps): VectorRoute[] {
  const { collections, schemas } = deps;
  const collectionOf = (ctx: Context, caller: Parameters<typeof resolveCollection>[1]) =>
    resolveCollection(ctx, caller, collections, 'collection');

  return [
    vectorRoute({
      method: 'get',
      path: SCHEMA_PATH,
      summary: 'Read the payload schema',
      success: { status: 200, description: `{result: ${SCHEMA_RECORD}, status}; header ETag.` },
      errors: [...COLLECTION, SchemaNotDefined],
      handler: async (ctx, caller) => {
        const collection = await collectionOf(ctx, caller);
        answerSchema(ctx, collection.name, await schemas.get(collection));
      },
    }),
    vectorRoute({
      method: 'put',
      path: SCHEMA_PATH,
      summary:
        'Write the payload schema {schema (JSON Schema 2020-12, or draft-07 by $schema; at most 64 KB), enforcement_mode: off|warn|strict, description?}; header If-Match for compare-and-set',
      success: {
        status: 200,
        description: `{result: ${SCHEMA_RECORD}, status}; header ETag. Enforcement applies to new writes (upsert, payload set and overwrite): warn accepts them with header X-Schema-Warnings (points that broke the schema) and a body warnings array [{point_id, field, message}] (the first 100); strict refuses them with 400 SCHEMA_VALIDATION_FAILED (details.violations, details.points_written). The attested __svc_ keys are not checked.`,
      },
      errors: [...SCHEMA, InvalidEnforcementMode, SchemaVersionMismatch],
      handler: async (ctx, caller) => {
        const collection = await collectionOf(ctx, caller);
        const input = parsePut(await readJsonObject(ctx));
        const stored = await schemas.put(collection, input, parseIfMatch(ctx.get('if-match')));
        answerSchema(ctx, collection.name, stored);
      },
    }),
    vectorRoute({
      method: 'delete',
      path: SCHEMA_PATH,
      summary: 'Remove the payload schema; honours If-Match',
      success: { status: 200, description: '{result: true, status}.' },
      errors: [...COLLECTION, SchemaNotDefined, SchemaVersionMismatch],
      handler: async (ctx, caller) => {
        const collection = await collectionOf(ctx, caller);
        await schemas.remove(collection, parseIfMatch(ctx.get('if-match')));
        ctx.body = { result: true, status: 'ok' };
      },
    }),
    vectorRoute({
      method: 'post',
      path: `${SCHEMA_PATH}/analyze`,
      summary: 'Infer a schema from stored points {sample_size?: 100..10000, default 1000}',
      success: {
        status: 200,
        description:
          '{result: {collection, sample_size, schema, fields: [{field, types, present_in}], scan: {exact, stopped_because, points_scanned, elapsed_ms}}, status}.',
      },
      errors: [...SCHEMA, InvalidSampleSize, ...ENGINE],
      handler: async (ctx, caller) => {
        const collection = await collectionOf(ctx, caller);
        const input = parseAnalyze(await readJsonObject(ctx));
        const result = await schemas.analyze(collection, input);
        ctx.body = {
          result: { collection: collection.name, sample_size: input.sampleSize, ...result },
          status: 'ok',
        };
      },
    }),
    vectorRoute({
      method: 'post',
      path: `${SCHEMA_PATH}/conformance`,
      summary:
        'Read-only conformance report {mode?: sample|full, sample_size?: 100..10000 (sample mode; default 1000), max_examples?: 0..100 (default 10)}',
      success: {
        status: 200,
        description:
          '{result: {collection, schema_version, mode, scan: {exact, stopped_because: end_of_collection|sample_size|time_budget, points_scanned, elapsed_ms}, points_conforming, points_violating, conformance_ratio, fields: [{field, points}], offending_point_ids, examples: [{id, field, message}]}, status}. A scan stops at a time budget (10 s) with exact false.',
      },
      errors: [
        ...SCHEMA,
        SchemaNotDefined,
        InvalidScanMode,
        InvalidSampleSize,
        InvalidMaxExamples,
        ...ENGINE,
      ],
      handler: async (ctx, caller) => {
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
      },
    }),
  ];
}
