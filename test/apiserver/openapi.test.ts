/** The OpenAPI document is generated from the mounted routes and their schemas. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { declaredControlPlaneRoutes } from '../factories/control-plane-routes.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from './control-plane-server.js';

type Operation = {
  operationId: string;
  security?: unknown[];
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: unknown;
  responses: Record<
    string,
    {
      'x-error-codes'?: string[];
      content?: Record<string, { schema: Record<string, unknown> }>;
    }
  >;
};
type Document = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, Record<string, unknown>>; required?: string[] }
    >;
  };
};

let server: TestServer;
let doc: Document;

beforeAll(async () => {
  server = await startControlPlaneServer();
  const res = await call<Document>(server, 'GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});

afterAll(async () => {
  await server.close();
});

const codes = (op: Operation, status: number) =>
  op.responses[String(status)]?.['x-error-codes'] ?? [];

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of API version 1.0.0, served without a key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('lists every mounted route, and nothing else', () => {
    const mounted = declaredControlPlaneRoutes()
      .map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:([a-z_]+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(mounted);
    expect(documented).toContain('POST /api/v1/agents/{agent}/archive');
  });

  it('lists the error codes each route returns, with the shared authentication codes', () => {
    const create = doc.paths['/api/v1/agents']?.post as Operation;
    expect(codes(create, 401).sort()).toEqual(['INVALID_API_KEY', 'MISSING_API_KEY']);
    expect(codes(create, 403).sort()).toEqual([
      'ACCOUNT_SUSPENDED',
      'AGENT_KEY_FORBIDDEN',
      'AUTH_SUBSCRIPTION_INACTIVE',
    ]);
    expect(codes(create, 409)).toEqual(['AGENT_NAME_TAKEN']);
    expect(codes(create, 400).sort()).toEqual(['PLAN_LIMIT_EXCEEDED', 'REGION_NOT_AVAILABLE']);
    expect(codes(create, 422)).toEqual(['VALIDATION_ERROR']);
    expect(codes(create, 429)).toEqual(['RATE_LIMIT_EXCEEDED']);
    expect(codes(create, 500)).toEqual(['AUTHENTICATION_ERROR']);
    expect(codes(create, 503)).toEqual(['SERVICE_UNAVAILABLE']);
    const patch = doc.paths['/api/v1/agents/{agent}']?.patch as Operation;
    expect(codes(patch, 400)).toContain('RUNTIME_IMMUTABLE');
    expect(codes(patch, 404)).toEqual(['AGENT_NOT_FOUND']);
    expect(codes(patch, 503).sort()).toEqual(['RESOURCE_BUSY', 'SERVICE_UNAVAILABLE']);
  });

  it('documents the deploy route refusing an archive that unpacks past the plan', () => {
    const deploy = doc.paths['/api/v1/agents/{agent}/deploy']?.post as Operation;
    expect(codes(deploy, 413).sort()).toEqual(['ARCHIVE_TOO_LARGE', 'REQUEST_TOO_LARGE']);
  });

  it('documents the account and usage routes with their own error codes', () => {
    const home = doc.paths['/api/v1/users/me/home-region']?.patch as Operation;
    expect(codes(home, 400)).toContain('REGION_NOT_AVAILABLE');
    expect(codes(home, 422)).toContain('STARTER_REGION_CONSISTENCY');
    const events = doc.paths['/api/v1/usage/agent/{agent_id}/events']?.get as Operation;
    expect(codes(events, 404)).toEqual(['AGENT_NOT_FOUND']);
    expect(events.parameters.map((p) => p.name).sort()).toEqual(
      ['agent_id', 'cursor', 'from', 'kind', 'limit', 'to'].sort(),
    );
    const summary = doc.paths['/api/v1/usage/summary']?.get as Operation;
    expect(codes(summary, 403)).toContain('AGENT_KEY_FORBIDDEN');
    expect(doc.components.schemas.UsageSummary?.required).toEqual(
      expect.arrayContaining(['period', 'totals', 'agents', 'limits']),
    );
  });

  it('marks the probes unauthenticated', () => {
    expect(doc.paths['/api/v1/health']?.get?.security).toEqual([]);
    expect(doc.paths['/api/v1/agents']?.get?.security).toBeUndefined();
  });

  it('documents AgentCreate from the schema the route validates with', () => {
    const create = doc.components.schemas.AgentCreate;
    expect(create?.required).toEqual(['name']);
    expect(create?.properties?.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 56 });
    expect(create?.properties?.runtime).toMatchObject({ default: 'python3.11' });
    expect(create?.properties?.runtime?.enum).toContain('dockerfile');
    expect(create?.properties?.memory_mb).toMatchObject({ type: 'integer', default: 256 });
    expect(create?.properties?.description).toMatchObject({ type: ['string', 'null'] });
  });

  it('documents every field of the Agent record', () => {
    const agent = doc.components.schemas.Agent;
    expect(Object.keys(agent?.properties ?? {})).toHaveLength(37);
    expect(agent?.properties?.serves_websocket).toMatchObject({ type: ['boolean', 'null'] });
    expect(agent?.required).toContain('cron_paused');
  });

  it('documents the list query parameters', () => {
    const list = doc.paths['/api/v1/agents']?.get as Operation;
    expect(list.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'query:agent_type',
      'query:limit',
      'query:offset',
      'query:status',
      'query:workspace_name',
    ]);
    const get = doc.paths['/api/v1/agents/{agent}']?.get as Operation;
    expect(get.parameters).toEqual([
      expect.objectContaining({ name: 'agent', in: 'path', required: true }),
    ]);
  });
});

/** Validates values against the document's own schemas, as a fuzzer checking responses does. */
function documentValidator(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components }, 'doc');
  return (ref: string, value: unknown) => {
    const validate = ajv.getSchema(`doc${ref}`);
    if (!validate) throw new Error(`no schema ${ref}`);
    return validate(value) ? [] : (validate.errors ?? []);
  };
}

describe('responses agree with the document', () => {
  it('documents GET /agents/{agent}/yaml as the parsed svc.yaml, and every response fits it, for YAML 1.1 parsers too', async () => {
    const { key } = await createCaller(server);
    const op = doc.paths['/api/v1/agents/{agent}/yaml']?.get as Operation;
    const ref = op.responses['200']?.content?.['application/yaml']?.schema.$ref as string;
    expect(ref).toBe('#/components/schemas/AgentConfigFile');
    const validate = documentValidator(doc);
    // Names a YAML 1.1 parser (PyYAML, which schemathesis uses) reads as a boolean or a date unquoted.
    for (const [name, extra] of [
      ['plain', {}],
      ['yes', { agent_type: 'job' }],
      ['2024-01-01', { runtime: 'node22' }],
      ['on', { runtime: 'dockerfile', tier: 'starter' }],
    ] as const) {
      const created = await call(server, 'POST', '/api/v1/agents', {
        key,
        body: { name, ...extra },
      });
      expect([name, created.status]).toEqual([name, 201]);
      const res = await call(server, 'GET', `/api/v1/agents/${name}/yaml`, { key });
      expect(res.status).toBe(200);
      for (const version of ['1.1', '1.2'] as const) {
        const parsed = parse(res.text, { version }) as Record<string, unknown>;
        expect([name, version, validate(ref, parsed)]).toEqual([name, version, []]);
        expect(parsed.name).toBe(name);
      }
    }
  });

  it('documents the 422 of every route that validates its path, query or body, /internal ones too', async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const validates = op.parameters.length > 0 || op.requestBody !== undefined;
        // The home region answers the contract's own 422 of a single-region plan beside it, and
        // a collection's region change the vector plane's 422s of regions outside the plan.
        const own =
          path === '/api/v1/users/me/home-region'
            ? ['STARTER_REGION_CONSISTENCY']
            : path === '/api/v1/collections/{collection_id}'
              ? [
                  'COLLECTION_REGIONS_EMPTY',
                  'COLLECTION_REGIONS_NOT_IN_SCOPE',
                  'STARTER_REGION_CONSISTENCY',
                ]
              : [];
        if (validates)
          expect([method, path, codes(op, 422)]).toEqual([
            method,
            path,
            ['VALIDATION_ERROR', ...own],
          ]);
      }
    }
    const id = 'not-a-uuid';
    for (const [method, path] of [
      ['GET', `/internal/deployments/${id}/archive`],
      ['GET', `/internal/deployments/${id}/artifact`],
      ['PUT', `/internal/deployments/${id}/artifact`],
      ['POST', `/internal/agents/${randomUUID()}/logs?token=x`],
      ['POST', '/internal/usage?token=x'],
    ] as const) {
      const res = await call<{ detail: { code: string } }>(server, method, path, {
        ...(method === 'POST' ? { body: { entries: 'not a list', events: 'not a list' } } : {}),
      });
      expect([method, path, res.status, res.body.detail.code]).toEqual([
        method,
        path,
        422,
        'VALIDATION_ERROR',
      ]);
    }
  });

  it('documents 415 UNSUPPORTED_MEDIA_TYPE on every route with a JSON body', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const json = (op.requestBody as { content?: Record<string, unknown> } | undefined)
          ?.content?.['application/json'];
        if (json)
          expect([method, path, codes(op, 415)]).toEqual([
            method,
            path,
            ['UNSUPPORTED_MEDIA_TYPE'],
          ]);
      }
    }
  });
});
