/** The OpenAPI document is generated from the mounted routes and their schemas. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { controlPlaneRoutes } from '../../apiserver/src/control-plane/app.js';
import { call, startControlPlaneServer, type TestServer } from './control-plane-server.js';

type Operation = {
  operationId: string;
  security?: unknown[];
  parameters: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: unknown;
  responses: Record<string, { 'x-error-codes'?: string[] }>;
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
    const mounted = controlPlaneRoutes({
      probes: [],
      agents: {} as never,
      deploy: {} as never,
      deployments: {} as never,
      internal: {} as never,
      runs: {} as never,
      logs: {} as never,
    })
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
