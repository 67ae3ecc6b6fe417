/**
 * The vector plane's OpenAPI 3.1 document, served at `GET /api/v1/openapi.json`,
 * generated from the routes' declarations (routing.ts): each declared route
 * and its workspace twin is an operation, with the catalogue errors it
 * declares and those authentication adds, so every mounted route is
 * documented and nothing else is. The description records the choices the
 * contract leaves "not shown" (201 on a first create, how hostile JSON is
 * refused, the caps on limit and offset, what the engine does not support).
 */
import { openApiPath } from '../http/declared-route.js';
import { MAX_JSON_DEPTH } from './json-limits.js';
import { MAX_LIMIT, MAX_OFFSET } from './points/paging.js';
import { servedPaths, type VectorRoute } from './routing.js';

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

function operation(route: VectorRoute, path: string): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [route.success.status]: { description: route.success.description },
  };
  const byStatus = new Map<number, string[]>();
  for (const e of route.errors) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e.code]);
  if (path.includes('{workspace}')) {
    for (const { status, codes } of WORKSPACE_TWIN_ERRORS) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), codes]);
    }
  }
  // The document and the refused engine-native create answer before authentication.
  const authenticated = route.authenticated !== false;
  if (authenticated) {
    for (const { status, codes } of AUTH_ERRORS) {
      byStatus.set(status, [...(byStatus.get(status) ?? []), codes]);
    }
  }
  for (const [status, codes] of byStatus) {
    if (status === route.success.status) continue;
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
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    operationId: `${route.method}${path.replace(/[^a-zA-Z0-9]+/g, '_')}`,
    ...(params.length ? { parameters: params } : {}),
    ...(authenticated ? {} : { security: [] }),
    responses,
  };
}

/** The OpenAPI document of the vector plane's `routes`. */
export function vectorOpenApi(routes: readonly VectorRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    for (const served of servedPaths(route)) {
      const path = openApiPath(served);
      paths[path] = { ...paths[path], [route.method]: operation(route, path) };
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
        `Bodies: a declared Content-Type other than application/json or application/*+json is 415 MALFORMED_JSON (the contract has no media-type code; a body without Content-Type is read as JSON); a body sent with a Content-Encoding (gzip, br, deflate) is 415 MALFORMED_JSON with Accept-Encoding: identity, since bodies are read as sent; nesting deeper than ${MAX_JSON_DEPTH} levels of arrays and objects (Qdrant's parser's limit) is 400 MALFORMED_JSON with max; a number beyond a 64-bit float (1e400, anywhere: vectors, payloads, queries) is 400 VALIDATION_ERROR naming the field, never stored as infinity or null. Member names are read as parsed, so a name spelled with escapes ("lookup\\u005ffrom") is the same name: lookup_from always names one of your collections. ` +
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
