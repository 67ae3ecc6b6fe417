/**
 * Builds the OpenAPI 3.1 document of a front door from its route
 * declarations and the yup schemas they validate with, so the document cannot
 * drift from what the server enforces. Each operation lists the catalogue
 * error codes it can return, grouped by HTTP status, in `x-error-codes` and in
 * the response descriptions.
 */
import type * as yup from 'yup';
import type { ErrorClass } from '../errors/catalogue.js';
import { routeErrors, type AnyRoute, type ResponseSpec } from '../control-plane/routing.js';
import { openApiPath } from '../http/declared-route.js';
import { toJsonSchema, type JsonSchema } from '../validation/json-schema.js';

/** Document metadata. */
export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
}

const ERROR_ENVELOPE: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable, append-only; switch on it.' },
        message: { type: 'string', description: 'Human-readable; wording may change.' },
        violations: {
          type: 'array',
          description: 'VALIDATION_ERROR only: the per-field errors.',
          items: {
            type: 'object',
            required: ['loc', 'msg', 'type'],
            properties: {
              loc: { type: 'array', items: { type: ['string', 'integer'] } },
              msg: { type: 'string' },
              type: { type: 'string' },
            },
          },
        },
      },
      additionalProperties: true,
    },
  },
};

function schemaRef(schema: string | yup.Schema | undefined): JsonSchema | undefined {
  if (schema === undefined) return undefined;
  return typeof schema === 'string'
    ? { $ref: `#/components/schemas/${schema}` }
    : toJsonSchema(schema);
}

function responseObject(spec: ResponseSpec): JsonSchema {
  const schema = schemaRef(spec.schema);
  const contentType = spec.contentType ?? 'application/json';
  return {
    description: spec.description,
    ...(schema || spec.contentType
      ? { content: { [contentType]: { schema: schema ?? { type: 'string' } } } }
      : {}),
  };
}

function errorResponses(errors: readonly ErrorClass[]): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorClass[]>();
  for (const error of errors) {
    const list = byStatus.get(error.status) ?? [];
    if (!list.includes(error)) list.push(error);
    byStatus.set(error.status, list);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: list.map((e) => `${e.code}: ${e.description}`).join(' | '),
      // A code once, though two entries give it at this status for different reasons (415
      // UNSUPPORTED_MEDIA_TYPE: not JSON, or sent encoded); the description gives both.
      'x-error-codes': [...new Set(list.map((e) => e.code))],
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return responses;
}

function parameters(route: AnyRoute): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (schema: yup.ObjectSchema<yup.AnyObject> | undefined, where: 'path' | 'query') => {
    if (!schema) return;
    const json = toJsonSchema(schema) as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = property as { description?: string };
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  };
  add(route.params, 'path');
  add(route.query, 'query');
  return out;
}

/** The OpenAPI 3.1 document of `routes`, with `schemas` as named components. */
export function buildOpenApiDocument(
  info: DocumentInfo,
  routes: readonly AnyRoute[],
  schemas: Record<string, yup.Schema>,
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const authenticated = route.authenticated !== false;
    const errors = routeErrors(route);
    const responses: Record<string, JsonSchema> = {};
    for (const [status, spec] of Object.entries(route.responses))
      responses[status] = responseObject(spec);
    Object.assign(responses, errorResponses(errors));
    const body = route.body
      ? route.bodySchemaName
        ? schemaRef(route.bodySchemaName)
        : schemaRef(route.body)
      : undefined;
    paths[path] = {
      ...paths[path],
      [route.method]: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        ...(authenticated ? {} : { security: [] }),
        parameters: parameters(route),
        ...(body
          ? {
              requestBody: {
                // A body schema marked .optional() (cancel's {reason}, a run's {payload}) may be left out.
                required: !route.body?.describe().optional,
                content: { 'application/json': { schema: body } },
              },
            }
          : {}),
        ...(route.rawBody
          ? {
              requestBody: {
                required: true,
                description: route.rawBody.description,
                content: {
                  [route.rawBody.contentType]: { schema: { type: 'string', format: 'binary' } },
                },
              },
            }
          : {}),
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: svc_live_… for production data, svc_test_… for the test environment.',
        },
      },
      schemas: {
        ...Object.fromEntries(
          Object.entries(schemas).map(([name, schema]) => [name, toJsonSchema(schema)]),
        ),
        ErrorEnvelope: ERROR_ENVELOPE,
      },
    },
  };
}
