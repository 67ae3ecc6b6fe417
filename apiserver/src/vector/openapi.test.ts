import { describe, expect, test } from '@jest/globals';
import { createLogger } from '../../../common/logger.js';
import type { AuthContext } from '../auth/authenticate.js';
import { createVectorAppWithRouter } from './app.js';
import type { CollectionService } from './collections/service.js';
import { declaredVectorRoutes } from './declared-routes.fixture.js';
import { EngineClient } from './engine-client.js';
import { Engines } from './engines.js';
import { fastPathMatcher } from './fast-path.js';
import { vectorOpenApi as documentOf } from './openapi.js';
import { servedPaths } from './routing.js';
import type { SchemaService } from './schema/service.js';
import type { StorageMeter } from './storage/storage-meter.js';

/** The document as the app serves it. */
const vectorOpenApi = () => documentOf(declaredVectorRoutes());

/** `method {path}` of every operation of the document. */
function documentedOperations(): string[] {
  const paths = vectorOpenApi().paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`))
    .sort();
}

describe('vectorOpenApi', () => {
  test('documents every mounted route with its method, and nothing else', () => {
    // Building the router needs no live dependency; nothing here is called.
    const { router } = createVectorAppWithRouter({
      log: createLogger('test', 'silent'),
      guard: async () => ({}) as AuthContext,
      collections: {} as CollectionService,
      engines: Engines.single(new EngineClient('http://127.0.0.1:1')),
      schemas: {} as SchemaService,
      storage: {} as StorageMeter,
      regions: ['local'],
    });
    const mounted = router.stack
      .flatMap((layer) =>
        layer.methods
          .filter((m) => m !== 'HEAD')
          .map((m) => `${m.toLowerCase()} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
      )
      .sort();
    expect(documentedOperations()).toEqual(mounted);
    // The two mounted forms of every declaration with a workspace twin, and the document's own route.
    expect(mounted).toContain('put /api/v1/workspaces/{workspace}/collections/{name}/points');
    expect(mounted).toContain('get /api/v1/openapi.json');
  });

  test('documents every path the fast path answers, with the same method', () => {
    const routes = declaredVectorRoutes();
    const match = fastPathMatcher(routes);
    const fast = routes.filter((route) => route.raw);
    expect(fast.length).toBeGreaterThan(10);
    const documented = documentedOperations();
    for (const route of fast) {
      for (const path of servedPaths(route)) {
        const url = path.replace(/:(\w+)/g, (_, name: string) => `some-${name}`);
        expect(match(route.method.toUpperCase(), url)?.route).toBe(route);
        expect(documented).toContain(`${route.method} ${path.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  });

  test('gives every operation its own operationId', () => {
    const paths = vectorOpenApi().paths as Record<string, Record<string, { operationId: string }>>;
    const ids = Object.values(paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(ids).toHaveLength(documentedOperations().length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('put_api_v1_collections_name_points');
  });

  test('records a first create as 201 and lists the authored codes of the upsert', () => {
    const paths = vectorOpenApi().paths as Record<
      string,
      Record<string, { responses: Record<string, { description: string }> }>
    >;
    expect(paths['/api/v1/collections']!.post!.responses['201']).toBeDefined();
    const upsert = paths['/api/v1/collections/{name}/points']!.put!.responses;
    expect(upsert['400']!.description).toMatch(/TOO_MANY_POINTS/);
    expect(upsert['413']!.description).toMatch(/PAYLOAD_TOO_LARGE/);
    expect(upsert['408']!.description).toMatch(/REQUEST_IDLE_TIMEOUT/);
    expect(upsert['503']!.description).toMatch(/SERVICE_UNAVAILABLE/);
  });

  test('lists the storage cap on writes that add data, and the workspace 404 on twins only', () => {
    const paths = vectorOpenApi().paths as Record<
      string,
      Record<string, { responses: Record<string, { description: string }> }>
    >;
    const upsert = paths['/api/v1/collections/{name}/points']!.put!.responses;
    expect(upsert['429']!.description).toMatch(/STORAGE_LIMIT_EXCEEDED/);
    const remove = paths['/api/v1/collections/{name}/points/delete']!.post!.responses;
    expect(remove['429']!.description).not.toMatch(/STORAGE_LIMIT_EXCEEDED/);
    const twin = paths['/api/v1/workspaces/{workspace}/collections/{name}/points']!.put!.responses;
    expect(twin['404']!.description).toMatch(/NOT_FOUND \(no such workspace/);
    expect(upsert['404']!.description).not.toMatch(/no such workspace/);
  });

  test('records the api-key header, the 415 for a body that is not JSON, and the paging caps', () => {
    const document = vectorOpenApi() as {
      security: unknown[];
      info: { description: string };
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<
        string,
        Record<string, { summary: string; responses: Record<string, { description: string }> }>
      >;
    };
    expect(document.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(document.components.securitySchemes.apiKey).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'api-key',
    });
    const search = document.paths['/api/v1/collections/{name}/points/search']!.post!;
    expect(search.responses['415']!.description).toMatch(/MALFORMED_JSON/);
    expect(search.summary).toMatch(/at most 10000/);
    expect(document.paths['/api/v1/collections/{name}/exists']!.get).toBeDefined();
    expect(document.info.description).toMatch(/prefix="api\/v1"/);
    expect(document.info.description).toMatch(/405 METHOD_NOT_ALLOWED and an Allow header/);
  });
});
