/**
 * Collection routes through the real gateway, FerretDB and engine: create
 * rules, idempotent re-create, regions, list, get with its headers, PATCH of
 * the description, delete with the in-use and cleanup rules, workspace twins.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { collections as openCollections } from '../../apiserver/src/store/database.js';
import {
  createAgentKey,
  createCollection,
  createVectorCaller,
  createWorkspace,
  startVectorServer,
  vcall,
  type ErrorBody,
  type VectorCaller,
  type VectorServer,
} from './vector-server.js';

let server: VectorServer;
let offset = 0;
let caller: VectorCaller;
const DAY = 24 * 60 * 60 * 1000;

type CollectionBody = { result: Record<string, unknown>; schema_version?: number };

beforeAll(async () => {
  server = await startVectorServer({
    now: () => Date.now() + offset,
    plansJson: JSON.stringify({ free: { vectorCollectionCap: 2 } }),
  });
  caller = await createVectorCaller(server);
});
afterAll(async () => {
  await server?.close();
});

const create = (key: string | null, body: unknown, path = '/api/v1/collections') =>
  vcall<ErrorBody & CollectionBody>(server, 'POST', path, { key, body });

async function engineNames(): Promise<string[]> {
  const res = await fetch(`${server.engineUrl}/collections`, {
    headers: { 'api-key': server.engineApiKey },
  });
  const body = (await res.json()) as { result: { collections: { name: string }[] } };
  return body.result.collections.map((c) => c.name);
}

describe('POST /api/v1/collections', () => {
  test('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await create(null, { name: 'docs', vectors: { size: 4, distance: 'cosine' } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  test.each([
    ['a name with a slash', { name: 'a/b', vectors: { size: 4, distance: 'cosine' } }, 'name'],
    [
      'a name of 101 characters',
      { name: 'n'.repeat(101), vectors: { size: 4, distance: 'dot' } },
      'name',
    ],
    ['an empty name', { name: '', vectors: { size: 4, distance: 'dot' } }, 'name'],
    [
      'a description of 501 characters',
      { name: 'd', vectors: { size: 4, distance: 'dot' }, description: 'x'.repeat(501) },
      'description',
    ],
    [
      'a description with angle brackets',
      { name: 'd', vectors: { size: 4, distance: 'dot' }, description: '<b>hi</b>' },
      'description',
    ],
    [
      'an unknown distance',
      { name: 'd', vectors: { size: 4, distance: 'hamming' } },
      'vectors.distance',
    ],
    ['a vector size of 0', { name: 'd', vectors: { size: 0, distance: 'dot' } }, 'vectors.size'],
    [
      'engine tuning (hnsw_config)',
      { name: 'd', vectors: { size: 4, distance: 'dot' }, hnsw_config: { m: 4 } },
      'hnsw_config',
    ],
    [
      'engine tuning inside vectors',
      { name: 'd', vectors: { size: 4, distance: 'dot', on_disk: true } },
      'vectors.on_disk',
    ],
  ])('returns 400 VALIDATION_ERROR for %s', async (_title, body, field) => {
    const res = await create(caller.key, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.objectContaining({ code: 'VALIDATION_ERROR', field }));
  });

  test('returns 400 MALFORMED_JSON for a body that is not JSON', async () => {
    const res = await vcall<ErrorBody>(server, 'POST', '/api/v1/collections', {
      key: caller.key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
  });

  test('returns 422 COLLECTION_REGIONS_NOT_IN_SCOPE for a region the installation does not offer', async () => {
    const res = await create(caller.key, {
      name: 'mars',
      vectors: { size: 4, distance: 'dot' },
      regions: ['mars-1'],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('COLLECTION_REGIONS_NOT_IN_SCOPE');
  });

  test('returns 422 COLLECTION_REGIONS_NOT_IN_SCOPE for two regions on a starter plan', async () => {
    const res = await create(caller.key, {
      name: 'two',
      vectors: { size: 4, distance: 'dot' },
      regions: ['local', 'eu-west'],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('COLLECTION_REGIONS_NOT_IN_SCOPE');
  });

  test('returns 422 STARTER_REGION_CONSISTENCY for a region other than the fixed one', async () => {
    const res = await create(caller.key, {
      name: 'elsewhere',
      vectors: { size: 4, distance: 'dot' },
      regions: ['eu-west'],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'STARTER_REGION_CONSISTENCY', existing_regions: ['local'] }),
    );
  });

  test('returns 422 COLLECTION_REGIONS_EMPTY for an empty region list', async () => {
    const res = await create(caller.key, {
      name: 'nowhere',
      vectors: { size: 4, distance: 'dot' },
      regions: [],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('COLLECTION_REGIONS_EMPTY');
  });

  test('returns 400 COLLECTION_LIMIT_EXCEEDED once the plan cap is reached', async () => {
    const free = await createVectorCaller(server, { tier: 'free' });
    await createCollection(server, free.key, 'one');
    await createCollection(server, free.key, 'two');
    const res = await create(free.key, { name: 'three', vectors: { size: 4, distance: 'dot' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'COLLECTION_LIMIT_EXCEEDED', max: 2 }),
    );
  });

  test("returns 403 COLLECTION_OWNERSHIP_MISMATCH for another account's engine name", async () => {
    const other = await createVectorCaller(server);
    const foreign = `t_live_${other.accountId.replaceAll('-', '')}_docs`;
    const res = await create(caller.key, { name: foreign, vectors: { size: 4, distance: 'dot' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('COLLECTION_OWNERSHIP_MISMATCH');
  });

  test('creates with 201, storing euclidean as Euclid under a tenant-scoped engine name', async () => {
    const res = await create(caller.key, {
      name: 'Euclid_docs-1',
      vectors: { size: 8, distance: 'EUCLIDEAN' },
      description: 'Support articles',
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toEqual(
      expect.objectContaining({
        name: 'Euclid_docs-1',
        vectors: { size: 8, distance: 'Euclid' },
        description: 'Support articles',
        regions: ['local'],
        status: 'green',
        lifecycle_status: 'active',
      }),
    );
    expect(res.text).not.toContain('t_live_');
    expect(await engineNames()).toContain(
      `t_live_${caller.accountId.replaceAll('-', '')}_Euclid_docs-1`,
    );
  });

  test('answers 200 with the same collection when created again with the same configuration', async () => {
    const body = { name: 'again', vectors: { size: 4, distance: 'Dot' } };
    expect((await create(caller.key, body)).status).toBe(201);
    const res = await create(caller.key, { ...body, vectors: { size: 4, distance: 'dot' } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(expect.objectContaining({ name: 'again' }));
  });

  test('returns 409 COLLECTION_NAME_TAKEN for the name with a different configuration', async () => {
    await createCollection(server, caller.key, 'taken', 4);
    const res = await create(caller.key, {
      name: 'taken',
      vectors: { size: 5, distance: 'cosine' },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('COLLECTION_NAME_TAKEN');
  });

  test('returns 409 COLLECTION_EXISTS_IN_OTHER_REGION for the same name asked in another region', async () => {
    const perf = await createVectorCaller(server, { tier: 'performance' });
    await createCollection(server, perf.key, 'geo', 4, { regions: ['local'] });
    const res = await create(perf.key, {
      name: 'geo',
      vectors: { size: 4, distance: 'cosine' },
      regions: ['eu-west'],
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual(
      expect.objectContaining({
        code: 'COLLECTION_EXISTS_IN_OTHER_REGION',
        existing_regions: ['local'],
      }),
    );
  });

  test('lets a performance plan span two regions', async () => {
    const perf = await createVectorCaller(server, { tier: 'performance' });
    const res = await create(perf.key, {
      name: 'replicated',
      vectors: { size: 4, distance: 'manhattan' },
      regions: ['local', 'eu-west'],
    });
    expect(res.status).toBe(201);
    expect(res.body.result).toEqual(
      expect.objectContaining({
        regions: ['local', 'eu-west'],
        vectors: { size: 4, distance: 'Manhattan' },
      }),
    );
  });
});

describe('creates that stopped part-way', () => {
  test('a re-create finishes a collection left creating by a create that stopped', async () => {
    const owner = await createVectorCaller(server);
    const engineName = `t_live_${owner.accountId.replaceAll('-', '')}_stalled`;
    const at = new Date(Date.now() - 5 * 60_000);
    await openCollections(server.db).vectorCollections.insertOne({
      _id: `live:${owner.accountId}::stalled`,
      accountId: owner.accountId,
      environment: 'live',
      workspace: null,
      name: 'stalled',
      engineName,
      size: 4,
      distance: 'Cosine',
      description: null,
      regions: ['local'],
      status: 'creating',
      version: 1,
      createdAt: at,
      updatedAt: at,
    });
    const res = await create(owner.key, {
      name: 'stalled',
      vectors: { size: 4, distance: 'cosine' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.lifecycle_status).toBe('active');
    expect(await engineNames()).toContain(engineName);
  });

  test('a create replaces an engine collection of the same name left with another configuration', async () => {
    const owner = await createVectorCaller(server);
    const engineName = `t_live_${owner.accountId.replaceAll('-', '')}_leftover`;
    await fetch(`${server.engineUrl}/collections/${engineName}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'api-key': server.engineApiKey },
      body: JSON.stringify({ vectors: { size: 9, distance: 'Dot' } }),
    });
    const res = await create(owner.key, {
      name: 'leftover',
      vectors: { size: 4, distance: 'cosine' },
    });
    expect(res.status).toBe(201);
    const info = (await (
      await fetch(`${server.engineUrl}/collections/${engineName}`, {
        headers: { 'api-key': server.engineApiKey },
      })
    ).json()) as {
      result: { config: { params: { vectors: unknown } } };
    };
    expect(info.result.config.params.vectors).toEqual({ size: 4, distance: 'Cosine' });
  });
});

describe('GET /api/v1/collections and /collections/{name}', () => {
  test('returns 404 COLLECTION_NOT_FOUND for a name the account does not have', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections/missing', {
      key: caller.key,
    });
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'COLLECTION_NOT_FOUND', collection_name: 'missing' }),
    );
  });

  test('returns {result, schema_version} with ETag, X-Collection-Source and X-Collection-Status (schema_version null without a payload schema)', async () => {
    await createCollection(server, caller.key, 'read-me');
    const res = await vcall<CollectionBody>(server, 'GET', '/api/v1/collections/read-me', {
      key: caller.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: expect.objectContaining({
        name: 'read-me',
        vectors: { size: 4, distance: 'Cosine' },
        points_count: 0,
      }),
      schema_version: null,
    });
    expect(res.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(res.headers.get('x-collection-source')).toBeTruthy();
    expect(res.headers.get('x-collection-status')).toBe('active');
  });

  test("carries what the official clients parse beside the contract's fields", async () => {
    await createCollection(server, caller.key, 'client-shaped', 8);
    const res = await vcall<CollectionBody>(server, 'GET', '/api/v1/collections/client-shaped', {
      key: caller.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual(
      expect.objectContaining({
        name: 'client-shaped',
        vectors: { size: 8, distance: 'Cosine' },
        regions: ['local'],
        status: 'green',
        lifecycle_status: 'active',
        optimizer_status: 'ok',
        segments_count: expect.any(Number),
        points_count: 0,
        payload_schema: {},
        config: expect.objectContaining({
          params: expect.objectContaining({ vectors: { size: 8, distance: 'Cosine' } }),
          hnsw_config: expect.any(Object),
          optimizer_config: expect.any(Object),
        }),
      }),
    );
    expect(res.text).not.toContain('t_live_');
  });

  test('lists the account’s collections by bare name, without the single-read headers', async () => {
    const own = await createVectorCaller(server);
    await createCollection(server, own.key, 'b-list');
    await createCollection(server, own.key, 'a-list');
    const res = await vcall<{ result: { collections: { name: string }[] } }>(
      server,
      'GET',
      '/api/v1/collections',
      { key: own.key },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.collections.map((c) => c.name)).toEqual(['a-list', 'b-list']);
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('x-collection-status')).toBeNull();
  });
});

describe('PATCH /api/v1/collections/{name}', () => {
  test.each([
    [{ hnsw_config: { m: 8 } }, 'hnsw_config'],
    [{ optimizers_config: {} }, 'optimizers_config'],
    [{ description: 'ok', name: 'renamed' }, 'name'],
  ])('returns 400 VALIDATION_ERROR for %j', async (body, field) => {
    await createCollection(server, caller.key, 'patch-me');
    const res = await vcall<ErrorBody>(server, 'PATCH', '/api/v1/collections/patch-me', {
      key: caller.key,
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.objectContaining({ code: 'VALIDATION_ERROR', field }));
  });

  test('returns 404 COLLECTION_NOT_FOUND for a name the account does not have', async () => {
    const res = await vcall<ErrorBody>(server, 'PATCH', '/api/v1/collections/missing', {
      key: caller.key,
      body: { description: 'x' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('COLLECTION_NOT_FOUND');
  });

  test('changes the description and the ETag', async () => {
    await createCollection(server, caller.key, 'describe-me');
    const before = await vcall(server, 'GET', '/api/v1/collections/describe-me', {
      key: caller.key,
    });
    const res = await vcall<CollectionBody>(server, 'PATCH', '/api/v1/collections/describe-me', {
      key: caller.key,
      body: { description: 'New words' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.description).toBe('New words');
    const after = await vcall<CollectionBody>(server, 'GET', '/api/v1/collections/describe-me', {
      key: caller.key,
    });
    expect(after.body.result.description).toBe('New words');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });
});

describe('GET /api/v1/collections/{name}/exists', () => {
  test('returns 400 VALIDATION_ERROR for a name that cannot be a collection', async () => {
    const res = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections/bad.name/exists', {
      key: caller.key,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  test("returns 403 COLLECTION_OWNERSHIP_MISMATCH for another account's engine name", async () => {
    const other = await createVectorCaller(server);
    const foreign = `t_live_${other.accountId.replaceAll('-', '')}_docs`;
    const res = await vcall<ErrorBody>(server, 'GET', `/api/v1/collections/${foreign}/exists`, {
      key: caller.key,
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('COLLECTION_OWNERSHIP_MISMATCH');
  });

  test("answers false for a name the account does not have (another account's included), true for its own", async () => {
    const other = await createVectorCaller(server);
    await createCollection(server, other.key, 'theirs');
    const exists = async (name: string, path = '/api/v1') =>
      (
        await vcall<{ result: { exists: boolean } }>(
          server,
          'GET',
          `${path}/collections/${name}/exists`,
          { key: caller.key },
        )
      ).body;
    expect(await exists('theirs')).toEqual({ result: { exists: false }, status: 'ok' });
    await createCollection(server, caller.key, 'mine');
    expect(await exists('mine')).toEqual({ result: { exists: true }, status: 'ok' });
  });
});

describe('DELETE /api/v1/collections/{name}', () => {
  test('answers 200 {result: false} for a name the account does not have, as Qdrant does', async () => {
    const res = await vcall(server, 'DELETE', '/api/v1/collections/missing', {
      key: caller.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: false, status: 'ok' });
  });

  test('returns 409 COLLECTION_IN_USE naming the agent that read it, until 35 days pass', async () => {
    const owner = await createVectorCaller(server);
    const agent = await createAgentKey(server, owner);
    await createCollection(server, owner.key, 'used');
    // Usage is observed: the agent's key reads the collection.
    expect(
      (await vcall(server, 'GET', '/api/v1/collections/used', { key: agent.key })).status,
    ).toBe(200);
    const res = await vcall<ErrorBody>(server, 'DELETE', '/api/v1/collections/used', {
      key: owner.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'COLLECTION_IN_USE', agents: [agent.agentId] }),
    );
    expect(res.body.error.retriable).toBeUndefined();
    offset = 36 * DAY;
    try {
      expect(
        (await vcall(server, 'DELETE', '/api/v1/collections/used', { key: owner.key })).status,
      ).toBe(200);
    } finally {
      offset = 0;
    }
  });

  test('is not blocked by an agent key that never opened the collection', async () => {
    const owner = await createVectorCaller(server);
    await createAgentKey(server, owner);
    await createCollection(server, owner.key, 'unused');
    const res = await vcall(server, 'DELETE', '/api/v1/collections/unused', { key: owner.key });
    expect(res.status).toBe(200);
  });

  test('returns 409 CLEANUP_IN_PROGRESS, retriable, while a prior deletion is finishing', async () => {
    const owner = await createVectorCaller(server);
    await createCollection(server, owner.key, 'cleaning');
    // A deletion that another replica started and has not finished.
    await openCollections(server.db).vectorDeletions.insertOne({
      _id: `live:${owner.accountId}::cleaning`,
      startedAt: new Date(),
    });
    const res = await vcall<ErrorBody>(server, 'DELETE', '/api/v1/collections/cleaning', {
      key: owner.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'CLEANUP_IN_PROGRESS', retriable: true }),
    );
    const again = await create(owner.key, {
      name: 'cleaning',
      vectors: { size: 4, distance: 'cosine' },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CLEANUP_IN_PROGRESS');
  });

  test('deletes the metadata and the engine collection', async () => {
    const owner = await createVectorCaller(server);
    await createCollection(server, owner.key, 'gone');
    const engineName = `t_live_${owner.accountId.replaceAll('-', '')}_gone`;
    expect(await engineNames()).toContain(engineName);
    const res = await vcall(server, 'DELETE', '/api/v1/collections/gone', { key: owner.key });
    expect(res.status).toBe(200);
    expect(await engineNames()).not.toContain(engineName);
    const get = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections/gone', {
      key: owner.key,
    });
    expect(get.body.error.code).toBe('COLLECTION_NOT_FOUND');
  });
});

describe('workspace-scoped twins', () => {
  test('returns 400 VALIDATION_ERROR for a workspace name with an underscore', async () => {
    const res = await create(
      caller.key,
      { name: 'ws', vectors: { size: 4, distance: 'dot' } },
      '/api/v1/workspaces/bad_ws/collections',
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'VALIDATION_ERROR', field: 'workspace' }),
    );
  });

  test('returns 404 NOT_FOUND for a workspace the account does not have, and creates nothing', async () => {
    const owner = await createVectorCaller(server);
    const other = await createVectorCaller(server);
    // Another account's workspace of that name does not count.
    await createWorkspace(other, 'team-b');
    const res = await create(
      owner.key,
      { name: 'ws', vectors: { size: 4, distance: 'dot' } },
      '/api/v1/workspaces/team-b/collections',
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual(
      expect.objectContaining({ code: 'NOT_FOUND', workspace: 'team-b' }),
    );
    for (const [method, path, body] of [
      ['GET', '/api/v1/workspaces/team-b/collections/ws', undefined],
      ['DELETE', '/api/v1/workspaces/team-b/collections/ws', undefined],
      ['PATCH', '/api/v1/workspaces/team-b/collections/ws', { description: 'x' }],
      ['PUT', '/api/v1/workspaces/team-b/collections/ws/points', { points: [] }],
      ['POST', '/api/v1/workspaces/team-b/collections/ws/points/search', { vector: [1, 0, 0, 0] }],
    ] as const) {
      const twin = await vcall<ErrorBody>(server, method, path, { key: owner.key, body });
      expect([method, twin.status, twin.body.error.code]).toEqual([method, 404, 'NOT_FOUND']);
    }
    const list = await vcall<{ result: { collections: unknown[] } }>(
      server,
      'GET',
      '/api/v1/collections',
      { key: owner.key },
    );
    expect(list.body.result.collections).toEqual([]);
  });

  test('keep a workspace collection apart from the workspace-less one of the same name', async () => {
    const owner = await createVectorCaller(server);
    await createWorkspace(owner, 'team-a');
    const created = await create(
      owner.key,
      { name: 'shared', vectors: { size: 4, distance: 'dot' } },
      '/api/v1/workspaces/team-a/collections',
    );
    expect(created.status).toBe(201);
    expect(created.body.result).toEqual(expect.objectContaining({ workspace: 'team-a' }));
    const twin = await vcall(server, 'GET', '/api/v1/workspaces/team-a/collections/shared', {
      key: owner.key,
    });
    expect(twin.status).toBe(200);
    const bare = await vcall<ErrorBody>(server, 'GET', '/api/v1/collections/shared', {
      key: owner.key,
    });
    expect(bare.status).toBe(404);
    const list = await vcall<{ result: { collections: unknown[] } }>(
      server,
      'GET',
      '/api/v1/collections',
      { key: owner.key },
    );
    expect(list.body.result.collections).toEqual([
      expect.objectContaining({ name: 'shared', workspace: 'team-a' }),
    ]);
    const patched = await vcall(server, 'PATCH', '/api/v1/workspaces/team-a/collections/shared', {
      key: owner.key,
      body: { description: 'team' },
    });
    expect(patched.status).toBe(200);
    const deleted = await vcall(server, 'DELETE', '/api/v1/workspaces/team-a/collections/shared', {
      key: owner.key,
    });
    expect(deleted.status).toBe(200);
  });
});

describe('GET /api/v1/regions', () => {
  test('returns 401 MISSING_API_KEY without a key', async () => {
    expect((await vcall(server, 'GET', '/api/v1/regions')).status).toBe(401);
  });

  test('maps every offered region to its URL', async () => {
    const res = await vcall(server, 'GET', '/api/v1/regions', { key: caller.key });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ local: server.base, 'eu-west': server.base });
  });
});
