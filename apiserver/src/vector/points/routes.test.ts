/**
 * How the declared point routes reach the engine: searches and queries go
 * through the search sender the plane is built with (the coalescer wrapping
 * the engine client), other requests through the client itself. Stand-in
 * services: what is under test is which sender each route uses.
 */
import { describe, expect, test } from '@jest/globals';
import type { AuthContext } from '../../auth/authenticate.js';
import type { VectorCollectionDoc } from '../collections/model.js';
import type { CollectionService } from '../collections/service.js';
import type { EngineClient, EngineResponse, SearchSender } from '../engine-client.js';
import type { VectorRoute } from '../routing.js';
import type { SchemaService } from '../schema/service.js';
import type { StorageMeter } from '../storage/storage-meter.js';
import { Engines } from '../engines.js';
import { pointRoutes } from './routes.js';

const doc = { engineName: 't_live_0123456789abcdef0123456789abcdef_docs' } as VectorCollectionDoc;
const caller = {
  account: { _id: '01234567-89ab-cdef-0123-456789abcdef' },
  key: { environment: 'live' },
} as unknown as AuthContext;
const OK: EngineResponse = { status: 200, text: '{"result":[],"status":"ok"}' };

/** The declared routes with a recording engine and search sender; what each was asked. */
function recorded(): { routes: VectorRoute[]; sent: string[]; searched: string[] } {
  const sent: string[] = [];
  const searched: string[] = [];
  const engine = {
    send: async (method: string, path: string) => (sent.push(`${method} ${path}`), OK),
    search: async () => {
      throw new Error('searches go through the declared sender');
    },
  } as unknown as EngineClient;
  const searches: SearchSender = {
    search: async (path, batchPath) => (searched.push(`${path} ${batchPath}`), OK),
  };
  const collections = {
    get: async () => doc,
    recordUsage: async () => undefined,
  } as unknown as CollectionService;
  const routes = pointRoutes({
    collections,
    engines: Engines.single(engine, searches),
    schemas: {} as SchemaService,
    storage: {} as StorageMeter,
  });
  return { routes, sent, searched };
}

/** Answers `method path` through the route's fast-path answer with a JSON body. */
async function answer(routes: VectorRoute[], method: string, path: string, body: unknown) {
  const route = routes.find((r) => r.method === method && r.path.endsWith(path))!;
  return route.raw!(
    {
      params: { name: 'docs' },
      querystring: '',
      body: async () => Buffer.from(JSON.stringify(body)),
    },
    caller,
  );
}

describe('pointRoutes', () => {
  test('sends searches and queries through the search sender, with their batch route', async () => {
    const { routes, sent, searched } = recorded();
    expect((await answer(routes, 'post', '/points/search', { vector: [1], limit: 1 })).status).toBe(
      200,
    );
    await answer(routes, 'post', '/points/query', { query: [1], limit: 1 });
    const base = `/collections/${doc.engineName}`;
    expect(searched).toEqual([
      `${base}/points/search ${base}/points/search/batch`,
      `${base}/points/query ${base}/points/query/batch`,
    ]);
    expect(sent).toEqual([]);
  });

  test('sends other reads through the engine client', async () => {
    const { routes, sent, searched } = recorded();
    await answer(routes, 'post', '/points/scroll', { limit: 1 });
    expect(sent).toEqual([`POST /collections/${doc.engineName}/points/scroll`]);
    expect(searched).toEqual([]);
  });
});
