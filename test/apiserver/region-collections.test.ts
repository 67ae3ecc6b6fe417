/**
 * Region changes that move collections between two real engines: local's and
 * eu-west's (two engine processes; the two regions share the harness's
 * Kubernetes API, which collections do not need). The control plane's runner
 * and the vector plane share the engines and the database, as in main.ts.
 * Writes made while the points are being copied reach the new engine; the
 * collection answers searches throughout; nothing is left in the old engine;
 * a copy that fails rolls back; a copy whose runner stopped resumes.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Engines } from '../../apiserver/src/vector/engines.js';
import { engineCollectionName } from '../../apiserver/src/vector/collections/model.js';
import { startEngine, type EngineProcess } from '../engine/support/engine-process.js';
import { eventually } from '../operator/operator-harness.js';
import { startVectorServer, type VectorServer } from '../vector/vector-server.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

jest.setTimeout(180_000);

const TIMINGS = {
  pollMs: 200,
  leaseMs: 2000,
  edgeGraceMs: 0,
  backoffMs: 100,
  maxAttempts: 3,
  // The gateway's lookup cache is 2 s.
  settleMs: 2500,
};
const POINTS = 3000;

let engineA: EngineProcess;
let engineB: EngineProcess;
/** Engine B behind a proxy that delays each request, so a copy takes a few seconds. */
let slowB: Server;
let engines: Engines;
let server: TestServer;
let runner: TestServer | null = null;
let vectors: VectorServer;
let owner: Caller;

beforeAll(async () => {
  [engineA, engineB] = await Promise.all([startEngine(), startEngine()]);
  slowB = delayingProxy(engineB.url, 30);
  await new Promise<void>((resolve) => slowB.listen(0, '127.0.0.1', resolve));
  const slowUrl = `http://127.0.0.1:${(slowB.address() as AddressInfo).port}`;
  engines = Engines.fromUrls(
    'local',
    engineA.url,
    { local: engineA.url, 'eu-west': slowUrl },
    { apiKey: engineA.apiKey },
  );
  server = await startControlPlaneServer({ regions: ['local', 'eu-west'], engines });
  vectors = await startVectorServer({
    db: server.db,
    engines,
    engine: engineA,
    regions: ['local', 'eu-west'],
    moves: { pollMs: 50 },
  });
  owner = await createCaller(server, { tier: 'performance' });
  runner = await startRunner();
}, 120_000);

afterAll(async () => {
  await runner?.close();
  await vectors?.close();
  await server?.close();
  engines?.close();
  slowB?.closeAllConnections();
  slowB?.close();
  await engineA?.dispose();
  await engineB?.dispose();
});

/** A control plane over the same database whose only job is to run region changes. */
function startRunner(): Promise<TestServer> {
  return startControlPlaneServer({
    regions: ['local', 'eu-west'],
    shareWith: server,
    engines,
    regionChanges: TIMINGS,
  });
}

/** An HTTP proxy to `target` that waits `delayMs` before forwarding each request. */
function delayingProxy(target: string, delayMs: number): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection'].includes(k)),
        ) as Record<string, string>;
        fetch(`${target}${req.url}`, {
          method: req.method,
          headers,
          body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        })
          .then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': 'application/json' });
            res.end(Buffer.from(await answer.arrayBuffer()));
          })
          .catch(() => {
            res.writeHead(502);
            res.end();
          });
      }, delayMs);
    });
  });
}

type Json = Record<string, unknown>;

/** A vector-plane request with the owner's key. */
async function vector<T = Json>(method: string, path: string, body?: unknown) {
  const res = await fetch(`${vectors.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

/** Direct to an engine, behind the gateway's back. */
async function engine<T = Json>(at: EngineProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${at.url}${path}`, {
    method,
    headers: { 'api-key': at.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const point = (id: number, payload: Json = {}) => ({
  id,
  vector: [1 + (id % 7), 1 + (id % 5), 1 + (id % 3), 1],
  payload: { n: id, tag: id % 2 ? 'odd' : 'even', ...payload },
});

/** A workspace in local with a collection of POINTS points and a payload index; its engine name. */
async function collectionIn(ws: string): Promise<string> {
  const created = await call(server, 'POST', '/api/v1/workspaces', {
    key: owner.key,
    body: { name: ws, regions: ['local'] },
  });
  expect(created.status).toBe(201);
  const base = `/api/v1/workspaces/${ws}/collections`;
  const made = await vector('POST', base, {
    name: 'docs',
    vectors: { size: 4, distance: 'cosine' },
    regions: ['local'],
  });
  expect(made.status).toBe(201);
  for (let start = 1; start <= POINTS; start += 1000) {
    const points = Array.from({ length: 1000 }, (_, i) => point(start + i));
    expect((await vector('PUT', `${base}/docs/points?wait=true`, { points })).status).toBe(200);
  }
  const index = await vector('PUT', `${base}/docs/index?wait=true`, {
    field_name: 'tag',
    field_schema: 'keyword',
  });
  expect(index.status).toBe(200);
  return engineCollectionName(
    { accountId: owner.accountId, environment: 'live', workspace: ws },
    'docs',
  );
}

type Operation = {
  state: string;
  error: string | null;
  progress: { collections: Array<{ name: string; state: string; points_copied: number }> };
};

const operation = (id: string) =>
  call<Operation>(server, 'GET', `/api/v1/operations/${id}`, { key: owner.key }).then(
    (r) => r.body,
  );

async function changeRegions(ws: string, regions: string[]): Promise<string> {
  const res = await call<{ operation_id: string }>(
    server,
    'PATCH',
    `/api/v1/workspaces/${ws}/regions`,
    { key: owner.key, body: { regions } },
  );
  expect(res.status).toBe(202);
  return res.body.operation_id;
}

const finished = (id: string) =>
  eventually(
    () => operation(id),
    (op) => ['succeeded', 'failed', 'rolled_back'].includes(op.state),
    `operation ${id} finished`,
    150_000,
  );

/** Searches the workspace's collection `docs` every 50 ms until stopped. */
const keepSearching = (ws: string) => keepSearchingAt(`/api/v1/workspaces/${ws}/collections/docs`);

describe("a workspace's collection moved from local's engine to eu-west's", () => {
  let engineName: string;
  let op: Operation;
  let seen: { statuses: number[]; labels: Set<string> };
  const base = '/api/v1/workspaces/vec-move/collections/docs';

  beforeAll(async () => {
    engineName = await collectionIn('vec-move');
    const searching = keepSearching('vec-move');
    const id = await changeRegions('vec-move', ['eu-west']);
    // Once a third is copied: writes to points the copy has already passed.
    await eventually(
      () => operation(id),
      (o) => (o.progress.collections[0]?.points_copied ?? 0) >= 1000,
      'a third of the points copied',
      60_000,
    );
    const writes = [
      vector('PUT', `${base}/points?wait=true`, {
        points: [point(0, { during: 'copy' }), point(7, { rewritten: true })],
      }),
      vector('POST', `${base}/points/delete?wait=true`, { points: [8] }),
      vector('POST', `${base}/points/payload?wait=true`, { payload: { marked: 1 }, points: [9] }),
      vector('POST', `${base}/points/delete?wait=true`, {
        filter: { must: [{ key: 'n', match: { value: 11 } }] },
      }),
    ];
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);
    op = await finished(id);
    seen = await searching.stop();
  });

  it('succeeds, the collection copied and done', () => {
    expect(op).toMatchObject({ state: 'succeeded', error: null });
    expect(op.progress.collections).toEqual([
      expect.objectContaining({ name: 'docs', state: 'done' }),
    ]);
    expect(op.progress.collections[0]!.points_copied).toBeGreaterThanOrEqual(POINTS);
  });

  it('kept answering searches throughout, labelled as a region change while it moved', () => {
    expect(seen.statuses.length).toBeGreaterThan(10);
    expect(seen.statuses.filter((s) => s !== 200)).toEqual([]);
    expect(seen.labels).toContain('region_change_in_progress');
  });

  it("holds every write made during the copy in eu-west's engine", async () => {
    const got = await engine<{ result: Array<{ id: number; payload: Json }> }>(
      engineB,
      'POST',
      `/collections/${engineName}/points`,
      { ids: [0, 7, 8, 9, 10, 11], with_payload: true },
    );
    const byId = new Map(got.body.result.map((p) => [p.id, p.payload]));
    expect(byId.get(0)).toMatchObject({ during: 'copy' });
    expect(byId.get(7)).toMatchObject({ rewritten: true });
    expect(byId.has(8)).toBe(false);
    expect(byId.get(9)).toMatchObject({ marked: 1 });
    expect(byId.get(10)).toMatchObject({ n: 10 });
    expect(byId.has(11)).toBe(false);
    const count = await engine<{ result: { count: number } }>(
      engineB,
      'POST',
      `/collections/${engineName}/points/count`,
      { exact: true },
    );
    // POINTS, one added, two deleted.
    expect(count.body.result.count).toBe(POINTS - 1);
  });

  it("leaves nothing in local's engine and serves the collection from eu-west, with its index", async () => {
    expect((await engine(engineA, 'GET', `/collections/${engineName}`)).status).toBe(404);
    // The gateway's lookup of the record is cached for up to 2 s.
    const read = await eventually(
      () => vector<{ result: Json }>('GET', base),
      (r) => r.body.result.lifecycle_status === 'active',
      'the collection active again',
      10_000,
    );
    expect(read.body.result).toMatchObject({
      regions: ['eu-west'],
      lifecycle_status: 'active',
      points_count: POINTS - 1,
    });
    expect(Object.keys(read.body.result.payload_schema as Json)).toEqual(['tag']);
    const found = await vector<{ result: unknown[] }>('POST', `${base}/points/search`, {
      vector: [1, 2, 3, 1],
      limit: 5,
    });
    expect(found.body.result).toHaveLength(5);
    expect(await server.db.collection('vector_move_log').countDocuments()).toBe(0);
  });
});

describe('a collection copy that fails', () => {
  let engineName: string;
  let op: Operation;

  beforeAll(async () => {
    engineName = await collectionIn('vec-fail');
    // eu-west's engine already has a collection of that name with another size: the copy fails.
    await engine(engineB, 'PUT', `/collections/${engineName}`, {
      vectors: { size: 8, distance: 'Cosine' },
    });
    op = await finished(await changeRegions('vec-fail', ['eu-west']));
  });

  it('rolls the change back, the collection served from local with every point', async () => {
    expect(op.state).toBe('rolled_back');
    expect(op.error).toMatch(/dimension/i);
    expect(op.progress.collections).toEqual([
      expect.objectContaining({ name: 'docs', state: 'rolled_back' }),
    ]);
    const read = await eventually(
      () => vector<{ result: Json }>('GET', '/api/v1/workspaces/vec-fail/collections/docs'),
      (r) => r.body.result.lifecycle_status !== 'region_change_in_progress',
      'the rolled-back record read',
      10_000,
    );
    expect(read.body.result).toMatchObject({
      regions: ['local'],
      lifecycle_status: 'region_change_rolled_back',
      points_count: POINTS,
    });
    expect(read.headers.get('x-collection-status')).toBe('region_change_rolled_back');
    expect((await engine(engineB, 'GET', `/collections/${engineName}`)).status).toBe(404);
    const ws = await call<{ regions: string[] }>(server, 'GET', '/api/v1/workspaces/vec-fail', {
      key: owner.key,
    });
    expect(ws.body.regions).toEqual(['local']);
  });
});

describe('a collection copy whose runner stopped', () => {
  it('is resumed by another runner from where it was, and converges', async () => {
    const engineName = await collectionIn('vec-resume');
    await runner?.close();
    runner = null;
    const id = await changeRegions('vec-resume', ['eu-west']);
    const first = await startRunner();
    const midway = await eventually(
      () => operation(id),
      (o) => (o.progress.collections[0]?.points_copied ?? 0) >= 500,
      'some points copied',
      60_000,
    );
    await first.close();
    const stoppedAt = (await operation(id)).progress.collections[0]!.points_copied;
    expect(stoppedAt).toBeLessThan(POINTS);
    runner = await startRunner();
    const op = await finished(id);
    expect(op.state).toBe('succeeded');
    expect(midway.state).toBe('running');
    // Resumed from the recorded cursor: not every point was copied twice.
    expect(op.progress.collections[0]!.points_copied).toBeLessThan(2 * POINTS);
    const count = await engine<{ result: { count: number } }>(
      engineB,
      'POST',
      `/collections/${engineName}/points/count`,
      { exact: true },
    );
    expect(count.body.result.count).toBe(POINTS);
    expect((await engine(engineA, 'GET', `/collections/${engineName}`)).status).toBe(404);
  });
});

describe('PATCH /api/v1/collections/{collection_id}', () => {
  type Answer = Json & { detail: { code: string } & Json };
  const patch = (ref: string, body: unknown, key: string | null = owner.key) =>
    call<Answer>(server, 'PATCH', `/api/v1/collections/${encodeURIComponent(ref)}`, {
      key,
      body,
    });

  /** A collection of `count` points, outside any workspace unless `ws` is given. */
  async function loose(name: string, ws: string | null, count = 200) {
    const base = ws ? `/api/v1/workspaces/${ws}/collections` : '/api/v1/collections';
    const made = await vector<{ result: { id: string } }>('POST', base, {
      name,
      vectors: { size: 4, distance: 'cosine' },
      regions: ['local'],
    });
    expect(made.status).toBe(201);
    const points = Array.from({ length: count }, (_, i) => point(i + 1));
    expect((await vector('PUT', `${base}/${name}/points?wait=true`, { points })).status).toBe(200);
    return made.body.result.id;
  }

  beforeAll(async () => {
    for (const ws of ['moves-from', 'moves-to']) {
      const res = await call(server, 'POST', '/api/v1/workspaces', {
        key: owner.key,
        body: { name: ws, regions: ['local'] },
      });
      expect(res.status).toBe(201);
    }
  });

  it('returns 401 MISSING_API_KEY without a key', async () => {
    expect((await patch('anything', { regions: ['local'] }, null)).status).toBe(401);
  });

  it.each([
    ['nothing to change', {}, ['body'], 'something_to_change'],
    ['an empty set of regions', { regions: [] }, ['body', 'regions'], 'array_too_short'],
    ['an unknown key', { regions: ['local'], name: 'x' }, ['body'], 'extra_forbidden'],
    [
      'a workspace name that is not a string',
      { workspace_name: 7 },
      ['body', 'workspace_name'],
      'type_error',
    ],
  ])('returns 422 VALIDATION_ERROR for %s', async (_, body, loc, type) => {
    const res = await patch('anything', body);
    expect(res.status).toBe(422);
    expect(res.body.detail.violations).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it("returns 403 AGENT_KEY_FORBIDDEN with an agent's own key", async () => {
    const agent = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'collection-mover' },
    });
    const key = await server.accounts.createKey({
      accountId: owner.accountId,
      environment: 'live',
      agentId: agent.body.id,
    });
    const res = await patch('anything', { regions: ['eu-west'] }, key.text);
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
  });

  it("returns 404 COLLECTION_NOT_FOUND for an unknown collection and another account's, by name and id", async () => {
    const id = await loose('mine-only', null, 1);
    const stranger = await createCaller(server, { tier: 'performance' });
    for (const ref of ['no-such-collection', 'moves-from/mine-only']) {
      const res = await patch(ref, { regions: ['eu-west'] });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('COLLECTION_NOT_FOUND');
    }
    for (const ref of ['mine-only', id]) {
      const res = await patch(ref, { regions: ['eu-west'] }, stranger.key);
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('COLLECTION_NOT_FOUND');
    }
  });

  it('returns 404 WORKSPACE_NOT_FOUND for a workspace the account does not have', async () => {
    const res = await patch('mine-only', { workspace_name: 'nowhere' });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
  });

  it('returns 422 for regions outside the plan, and STARTER_REGION_CONSISTENCY on a single-region plan', async () => {
    const unknown = await patch('mine-only', { regions: ['mars'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail.code).toBe('COLLECTION_REGIONS_NOT_IN_SCOPE');
    const starter = await createCaller(server, { tier: 'starter' });
    const made = await fetch(`${vectors.base}/api/v1/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${starter.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'fixed', vectors: { size: 4, distance: 'cosine' } }),
    });
    expect(made.status).toBe(201);
    const res = await patch('fixed', { regions: ['eu-west'] }, starter.key);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('STARTER_REGION_CONSISTENCY');
  });

  it('answers 200 RegionChangeNoOp when nothing changes', async () => {
    const res = await patch('mine-only', { regions: ['local'], workspace_name: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'no_op', scope: 'collection', current_regions: ['local'] });
  });

  it('returns 409 COLLECTION_NAME_TAKEN when the workspace it moves to has one of that name', async () => {
    await loose('twin', 'moves-to', 1);
    await loose('twin', null, 1);
    const res = await patch('twin', { workspace_name: 'moves-to' });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe('COLLECTION_NAME_TAKEN');
  });

  it("moves a collection's points to another region, then refuses a second change while it runs", async () => {
    const id = await loose('regional', null);
    const res = await patch(id, { regions: ['eu-west'] });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'pending',
      scope: 'collection',
      workspace_name: null,
      from_regions: ['local'],
      to_regions: ['eu-west'],
    });
    const again = await patch('regional', { regions: ['local'] });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatchObject({
      code: 'REGION_CHANGE_IN_PROGRESS',
      operation_id: res.body.operation_id,
    });
    const op = await finished(String(res.body.operation_id));
    expect(op).toMatchObject({ state: 'succeeded', collection_name: 'regional' });
    const name = engineCollectionName(
      { accountId: owner.accountId, environment: 'live', workspace: null },
      'regional',
    );
    expect((await engine(engineA, 'GET', `/collections/${name}`)).status).toBe(404);
    const count = await engine<{ result: { count: number } }>(
      engineB,
      'POST',
      `/collections/${name}/points/count`,
      { exact: true },
    );
    expect(count.body.result.count).toBe(200);
  });

  it('moves a collection into a workspace, with its payload schema, while it answers', async () => {
    await loose('wanderer', null);
    const schema = await vector('PUT', '/api/v1/schema/wanderer', {
      schema: { type: 'object', properties: { n: { type: 'integer' } } },
      enforcement_mode: 'warn',
    });
    expect([200, 201]).toContain(schema.status);
    const searching = keepSearchingAt('/api/v1/collections/wanderer');
    const res = await patch('wanderer', { workspace_name: 'moves-to', regions: ['eu-west'] });
    expect(res.status).toBe(202);
    const op = await finished(String(res.body.operation_id));
    const seen = await searching.stop();
    expect(op).toMatchObject({
      state: 'succeeded',
      collection_name: 'wanderer',
      to_workspace_name: 'moves-to',
      to_regions: ['eu-west'],
    });
    expect(seen.labels).toContain('workspace_move_in_progress');
    // Until the switch it answered at its old name.
    expect(seen.statuses.filter((s) => s !== 200 && s !== 404)).toEqual([]);
    expect(seen.statuses[0]).toBe(200);
    const moved = await eventually(
      () => vector<{ result: Json }>('GET', '/api/v1/workspaces/moves-to/collections/wanderer'),
      (r) => r.status === 200 && r.body.result.lifecycle_status === 'active',
      'the collection served in its new workspace',
      10_000,
    );
    expect(moved.body.result).toMatchObject({ regions: ['eu-west'], points_count: 200 });
    await eventually(
      () => vector('GET', '/api/v1/collections/wanderer'),
      (r) => r.status === 404,
      'the old name gone',
      10_000,
    );
    const oldName = engineCollectionName(
      { accountId: owner.accountId, environment: 'live', workspace: null },
      'wanderer',
    );
    const newName = engineCollectionName(
      { accountId: owner.accountId, environment: 'live', workspace: 'moves-to' },
      'wanderer',
    );
    expect((await engine(engineA, 'GET', `/collections/${oldName}`)).status).toBe(404);
    expect((await engine(engineB, 'GET', `/collections/${newName}`)).status).toBe(200);
    const schemas = await server.db
      .collection('vector_payload_schemas')
      .find({ collectionId: `live:${owner.accountId}:moves-to:wanderer` })
      .toArray();
    expect(schemas).toHaveLength(1);
    // The old name is free again.
    const again = await vector('POST', '/api/v1/collections', {
      name: 'wanderer',
      vectors: { size: 4, distance: 'cosine' },
      regions: ['local'],
    });
    expect(again.status).toBe(201);
  });
});

/** Searches at `path` every 50 ms until stopped; each status and label seen. */
function keepSearchingAt(path: string) {
  const statuses: number[] = [];
  const labels = new Set<string>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const found = await vector('POST', `${path}/points/search`, {
        vector: [1, 2, 3, 1],
        limit: 3,
      });
      statuses.push(found.status);
      const read = await vector('GET', path);
      labels.add(String(read.headers.get('x-collection-status')));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { statuses, labels };
    },
  };
}
