/**
 * The vector plane's OpenAPI 3.1 document, served at `GET /api/v1/openapi.json`.
 * It records the choices the contract leaves "not shown" (201 on a first
 * create, the body shapes of collection routes, the caps on limit and offset,
 * how hostile JSON is refused) and which catalogue errors each route can
 * answer. A test checks every mounted route is listed here.
 */
import {
  CleanupInProgress,
  CollectionExistsInOtherRegion,
  CollectionInUse,
  CollectionLimitExceeded,
  CollectionNameTaken,
  CollectionNotFound,
  CollectionOwnershipMismatch,
  CollectionRegionsEmpty,
  CollectionRegionsNotInScope,
  GatewayTimeout,
  InvalidPointId,
  MalformedJson,
  PointPayloadTooLarge,
  ProxyError,
  RequestIdleTimeout,
  ReservedField,
  ResponseTooLarge,
  SchemaNotDefined,
  SchemaValidationFailed,
  SchemaVersionMismatch,
  InvalidEnforcementMode,
  InvalidMaxExamples,
  InvalidSampleSize,
  InvalidScanMode,
  StarterRegionConsistency,
  StorageLimitExceeded,
  TooManyPoints,
  UpsertBodyTooLarge,
  VectorMethodNotAllowed,
  VectorValidationError,
  type ErrorClass,
} from '../errors/catalogue.js';
import { JsonContentTypeRequired } from './json-body.js';
import { MAX_JSON_DEPTH } from './json-limits.js';
import { MAX_LIMIT, MAX_OFFSET } from './points/paging.js';

/** One documented operation. */
export interface VectorOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path, `{param}` style, without the workspace prefix. */
  path: string;
  summary: string;
  /** Whether a `/workspaces/{workspace}` twin exists. */
  workspaceTwin: boolean;
  success: { status: number; description: string };
  errors: readonly ErrorClass[];
}

const COLLECTION = [CollectionOwnershipMismatch, VectorValidationError, CollectionNotFound];
const ENGINE = [ProxyError, GatewayTimeout, ResponseTooLarge];
/** What every route reading a JSON body can answer about the body itself. */
const JSON_BODY = [MalformedJson, VectorValidationError, JsonContentTypeRequired];
const POINT_READ = [...COLLECTION, ...JSON_BODY, InvalidPointId, ...ENGINE];
const POINT_WRITE = [...POINT_READ, ReservedField, PointPayloadTooLarge];
const SCHEMA = [...COLLECTION, ...JSON_BODY];

const schema = (
  method: VectorOperation['method'],
  suffix: string,
  summary: string,
  success: string,
  errors: readonly ErrorClass[],
): VectorOperation => ({
  method,
  path: `/api/v1/schema/{collection}${suffix}`,
  summary,
  workspaceTwin: false,
  success: { status: 200, description: success },
  errors,
});

const SCHEMA_RECORD =
  '{collection, schema, enforcement_mode, description, version, etag, created_at, updated_at}';
/** Writes that add data: the plan's storage cap applies (deletes never refused). */
const POINT_GROW = [...POINT_WRITE, StorageLimitExceeded];

const point = (
  method: VectorOperation['method'],
  suffix: string,
  summary: string,
  errors: readonly ErrorClass[] = POINT_READ,
): VectorOperation => ({
  method,
  path: `/api/v1/collections/{name}${suffix}`,
  summary,
  workspaceTwin: true,
  success: { status: 200, description: "The engine's answer: {result, status, time}." },
  errors,
});

/** Every operation of the vector plane. */
export const VECTOR_OPERATIONS: readonly VectorOperation[] = [
  {
    method: 'post',
    path: '/api/v1/collections',
    summary: 'Create a collection {name, vectors:{size, distance}, description?, regions?}',
    workspaceTwin: true,
    success: {
      status: 201,
      description:
        '{result: collection, status}; 201 when created, 200 when it already existed with the same configuration.',
    },
    errors: [
      ...JSON_BODY,
      CollectionOwnershipMismatch,
      CollectionLimitExceeded,
      CollectionNameTaken,
      CollectionExistsInOtherRegion,
      CleanupInProgress,
      CollectionRegionsEmpty,
      CollectionRegionsNotInScope,
      StarterRegionConsistency,
      ...ENGINE,
    ],
  },
  {
    method: 'get',
    path: '/api/v1/collections',
    summary: "List the account's collections (workspace ones carry `workspace`)",
    workspaceTwin: false,
    success: { status: 200, description: '{result: {collections: [collection]}, status}.' },
    errors: [],
  },
  {
    method: 'get',
    path: '/api/v1/collections/{name}',
    summary: 'Read a collection',
    workspaceTwin: true,
    success: {
      status: 200,
      description:
        "{result, schema_version}. result holds the contract's fields (name, vectors: {size, distance}, description, regions, created_at, updated_at, workspace in a workspace) and what the official Qdrant clients parse, from the engine: status (Qdrant's: green, yellow; grey while the collection is being created; red when the engine could not describe it), optimizer_status, segments_count, config (params.vectors = {size, distance}, hnsw_config, optimizer_config, wal_config, quantization_config), payload_schema, points_count and indexed_vectors_count. The lifecycle label the dashboard shows (active, creating) is lifecycle_status, also in the header X-Collection-Status. schema_version is the version of the payload schema in force (the number in its ETag), null when none; headers ETag, X-Collection-Source, X-Collection-Status.",
    },
    errors: COLLECTION,
  },
  {
    method: 'get',
    path: '/api/v1/collections/{name}/exists',
    summary: "Whether the collection exists (Qdrant's collection_exists); records no use",
    workspaceTwin: true,
    success: {
      status: 200,
      description: '{result: {exists: boolean}, status}.',
    },
    errors: [CollectionOwnershipMismatch, VectorValidationError],
  },
  {
    method: 'patch',
    path: '/api/v1/collections/{name}',
    summary: 'Change the description (the only mutable field)',
    workspaceTwin: true,
    success: { status: 200, description: '{result: collection, status}; header ETag.' },
    errors: [...COLLECTION, ...JSON_BODY],
  },
  {
    method: 'delete',
    path: '/api/v1/collections/{name}',
    summary: 'Delete a collection and its points',
    workspaceTwin: true,
    success: {
      status: 200,
      description:
        "{result: true, status} when deleted; {result: false, status} when there was no such collection, as Qdrant answers (the official clients' recreate deletes first).",
    },
    errors: [
      CollectionOwnershipMismatch,
      VectorValidationError,
      CollectionInUse,
      CleanupInProgress,
      ...ENGINE,
    ],
  },
  {
    method: 'put',
    path: '/api/v1/collections/{name}',
    summary: 'Engine-native create: not supported; use POST /api/v1/collections',
    workspaceTwin: true,
    success: { status: 405, description: 'Always 405 METHOD_NOT_ALLOWED.' },
    errors: [VectorMethodNotAllowed],
  },
  {
    method: 'get',
    path: '/api/v1/regions',
    summary: 'Map of region to regional URL',
    workspaceTwin: false,
    success: { status: 200, description: '{result: {region: url}, status}.' },
    errors: [],
  },
  point('put', '/points', 'Upsert points (streamed) {points:[{id, vector, payload?}]}', [
    ...POINT_GROW,
    TooManyPoints,
    UpsertBodyTooLarge,
    RequestIdleTimeout,
    SchemaValidationFailed,
  ]),
  point('post', '/points', 'Batch retrieve (falls through to retrieve; expects ids)'),
  point('post', '/points/retrieve', 'Retrieve points {ids, with_payload?, with_vector?}'),
  point('get', '/points/{id}', 'Retrieve one point'),
  point(
    'post',
    '/points/search',
    `Search {vector, limit (at most ${MAX_LIMIT}), offset? (at most ${MAX_OFFSET}), filter?, params?, ...}`,
  ),
  point('post', '/points/search/batch', 'Several searches {searches}; each capped as one search'),
  point(
    'post',
    '/points/query',
    `Nearest-point query; limit at most ${MAX_LIMIT} (also in each prefetch), offset at most ${MAX_OFFSET}; lookup_from names one of your collections`,
  ),
  point('post', '/points/query/batch', 'Several queries {searches}; each capped as one query'),
  point(
    'post',
    '/points/query/groups',
    `Grouped query {query?, prefetch?, filter?, group_by, group_size?, limit? (groups, at most ${MAX_LIMIT}), ...}; with_lookup is 400 (not supported)`,
  ),
  point(
    'post',
    '/points/search/groups',
    `Grouped search {vector, group_by, group_size, limit (groups, at most ${MAX_LIMIT}), filter?, ...}; with_lookup is 400 (not supported)`,
  ),
  point(
    'post',
    '/points/scroll',
    `Page through points {limit? (at most ${MAX_LIMIT}), offset? (a point id), filter?, ...}`,
  ),
  point('post', '/points/count', 'Count points {filter?, exact?}; limit is ignored'),
  point('post', '/points/delete', 'Delete points {points} or {filter}'),
  point('post', '/points/payload', 'Merge payload {payload, points|filter}', [
    ...POINT_GROW,
    SchemaValidationFailed,
  ]),
  point('put', '/points/payload', 'Overwrite payload {payload, points|filter}', [
    ...POINT_GROW,
    SchemaValidationFailed,
  ]),
  point('post', '/points/payload/delete', 'Delete payload keys {keys, points|filter}', POINT_WRITE),
  point('post', '/points/payload/clear', 'Clear payloads {points|filter}'),
  point('put', '/points/vectors', 'Update vectors {points:[{id, vector}]}', [
    ...POINT_READ,
    StorageLimitExceeded,
  ]),
  point('put', '/index', 'Create a payload field index'),
  point('post', '/index', 'Create a payload field index'),
  point('delete', '/index/{field}', 'Delete a payload field index'),
  schema('get', '', 'Read the payload schema', `{result: ${SCHEMA_RECORD}, status}; header ETag.`, [
    ...COLLECTION,
    SchemaNotDefined,
  ]),
  schema(
    'put',
    '',
    'Write the payload schema {schema (JSON Schema 2020-12, or draft-07 by $schema; at most 64 KB), enforcement_mode: off|warn|strict, description?}; header If-Match for compare-and-set',
    `{result: ${SCHEMA_RECORD}, status}; header ETag. Enforcement applies to new writes (upsert, payload set and overwrite): warn accepts them with header X-Schema-Warnings (points that broke the schema) and a body warnings array [{point_id, field, message}] (the first 100); strict refuses them with 400 SCHEMA_VALIDATION_FAILED (details.violations, details.points_written). The attested __svc_ keys are not checked.`,
    [...SCHEMA, InvalidEnforcementMode, SchemaVersionMismatch],
  ),
  schema('delete', '', 'Remove the payload schema; honours If-Match', '{result: true, status}.', [
    ...COLLECTION,
    SchemaNotDefined,
    SchemaVersionMismatch,
  ]),
  schema(
    'post',
    '/analyze',
    'Infer a schema from stored points {sample_size?: 100..10000, default 1000}',
    '{result: {collection, sample_size, schema, fields: [{field, types, present_in}], scan: {exact, stopped_because, points_scanned, elapsed_ms}}, status}.',
    [...SCHEMA, InvalidSampleSize, ...ENGINE],
  ),
  schema(
    'post',
    '/conformance',
    'Read-only conformance report {mode?: sample|full, sample_size?: 100..10000 (sample mode; default 1000), max_examples?: 0..100 (default 10)}',
    '{result: {collection, schema_version, mode, scan: {exact, stopped_because: end_of_collection|sample_size|time_budget, points_scanned, elapsed_ms}, points_conforming, points_violating, conformance_ratio, fields: [{field, points}], offending_point_ids, examples: [{id, field, message}]}, status}. A scan stops at a time budget (10 s) with exact false.',
    [
      ...SCHEMA,
      SchemaNotDefined,
      InvalidScanMode,
      InvalidSampleSize,
      InvalidMaxExamples,
      ...ENGINE,
    ],
  ),
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    workspaceTwin: false,
    success: { status: 200, description: 'OpenAPI 3.1 document.' },
    errors: [],
  },
];

const AUTH_ERRORS = [
  { status: 401, codes: 'MISSING_API_KEY, INVALID_API_KEY' },
  { status: 403, codes: 'ACCOUNT_SUSPENDED' },
  { status: 429, codes: 'RATE_LIMIT_EXCEEDED (retriable, no Retry-After)' },
  { status: 500, codes: 'AUTHENTICATION_ERROR (retriable), INTERNAL_ERROR' },
  { status: 503, codes: 'SERVICE_UNAVAILABLE (retriable: the metadata store is unreachable)' },
];

/** What a workspace twin answers besides its workspace-less form's errors. */
const WORKSPACE_TWIN_ERRORS = [
  { status: 404, codes: 'NOT_FOUND (no such workspace; nothing is created)' },
  { status: 400, codes: 'VALIDATION_ERROR (workspace name)' },
];

function operation(op: VectorOperation, path: string): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [op.success.status]: { description: op.success.description },
  };
  const byStatus = new Map<number, string[]>();
  for (const e of op.errors) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e.code]);
  if (path.includes('{workspace}')) {
    for (const { status, codes } of WORKSPACE_TWIN_ERRORS) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), codes]);
    }
  }
  // The document and the refused engine-native create answer before authentication.
  const authenticated = op.path !== '/api/v1/openapi.json' && op.success.status !== 405;
  if (authenticated) {
    for (const { status, codes } of AUTH_ERRORS) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), codes]);
    }
  }
  for (const [status, codes] of byStatus) {
    if (status === op.success.status) continue;
    responses[status] = {
      description: [...new Set(codes)].join(', '),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  return {
    summary: op.summary,
    operationId: `${op.method}${path.replace(/[^a-zA-Z0-9]+/g, '_')}`,
    ...(params.length ? { parameters: params } : {}),
    ...(op.path === '/api/v1/openapi.json' ? { security: [] } : {}),
    responses,
  };
}

/** The OpenAPI document of the vector plane. */
export function vectorOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of VECTOR_OPERATIONS) {
    const forms = [op.path];
    if (op.workspaceTwin) forms.push(op.path.replace('/api/v1', '/api/v1/workspaces/{workspace}'));
    for (const path of forms) {
      paths[path] = { ...paths[path], [op.method]: operation(op, path) };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc vector data plane',
      version: '1.0.0',
      description:
        'Collections, points, payloads, payload indexes and payload schemas, tenant-scoped. Errors are {error:{code,message,...}}; switch on error.code. Point routes relay the engine (Qdrant REST shapes). ' +
        'Official Qdrant clients: every route is under /api/v1, so set the client\'s base path: Python QdrantClient(url="https://<vectors host>", prefix="api/v1", api_key=KEY, port=None) (port=None keeps the client from adding 6333 to a URL without a port; check_compatibility=False skips its version probe, which this API does not answer), JS new QdrantClient({url, prefix: "/api/v1", apiKey: KEY, checkCompatibility: false}). The key goes in Authorization: Bearer <key> or in the api-key header the clients send for their key option; when both are sent, api-key is read, as Qdrant reads it. Create collections with POST /api/v1/collections: the clients\' own create (PUT /collections/{name}) is 405. ' +
        'Unsupported engine endpoints answer 404 NOT_FOUND "Unsupported endpoint" before authentication: snapshots, telemetry, metrics, cluster, locks, shards, aliases, issues, points/recommend, points/discover (use points/query with recommend or discover), points/batch, facet, points/search/matrix, points/vectors/delete. A path that exists answers a method it does not take (TRACE included) with 405 METHOD_NOT_ALLOWED and an Allow header; OPTIONS answers 204 with Allow. ' +
        `Bodies: a declared Content-Type other than application/json or application/*+json is 415 MALFORMED_JSON (the contract has no media-type code; a body without Content-Type is read as JSON); nesting deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (Qdrant's parser's limit) is 400 MALFORMED_JSON with max; a number beyond a 64-bit float (1e400, anywhere: vectors, payloads, queries) is 400 VALIDATION_ERROR naming the field, never stored as infinity or null. Member names are read as parsed, so a name spelled with escapes ("lookup\\u005ffrom") is the same name: lookup_from always names one of your collections. ` +
        'Engine bodies are read strictly, as Qdrant 1.16 reads them: a field the request does not have ("lmit") or an enum value it does not have is 400 BAD_REQUEST "Format error in JSON body: unknown field `lmit`, expected one of ..." (or "unknown variant"); a field Qdrant has and the engine does not implement is 400 BAD_REQUEST "`<field>` is not supported by this engine", never ignored. Implemented and checked against Qdrant\'s core (qdrant-edge): the query API\'s nearest (a vector or a point id), prefetch (nested) with fusion rrf (k, weights) and dbsf, recommend (average_vector, best_score, sum_scores), discover, context, order_by (start_from), sample random, lookup_from, score_threshold, offset; query and search groups; upsert update_filter and update_mode; vector update update_filter; scroll order_by with start_from; with_vector and its alias with_vectors on query and scroll (search and retrieve drop with_vectors, per the contract). Not supported (400 saying so): shard_key, named, sparse and multi vectors, inference inputs (text, image, object), query mmr and formula, groups with_lookup, params.indexed_only true, params.acorn enable true, score_threshold with recommend, discover or context on a euclid or manhattan collection; scroll offset together with order_by is 400 as in Qdrant. ' +
        `Paging: limit is at most ${MAX_LIMIT} on search, query (and each prefetch) and scroll, offset at most ${MAX_OFFSET} on search and query (a scroll's offset is a point id); over it is 400 VALIDATION_ERROR with field and max. ` +
        'Attested keys: __svc_agent_id and __svc_deployment_id come back on every read that selects the payload. A merge or payload-key delete by a user key stamps them null, which the engine (as Qdrant) stores as absent; reads put them back as null, so filter for points last written by a user key with is_empty on __svc_agent_id rather than is_null. ' +
        'Consistency: a revoked key or a suspension takes effect here within 5 s (resolved keys are cached); the per-minute limit is exact per replica and may admit what other replicas admitted in the last 250 ms; the storage cap uses an estimate (points x (4 x size + average payload bytes)) refreshed every 10 s, with writes meanwhile added.',
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'api-key' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                retriable: { type: 'boolean' },
                request_id: { type: 'string' },
              },
              additionalProperties: true,
            },
          },
        },
      },
    },
  };
}
