/**
 * PATCH /api/v1/workspaces/{workspace}/regions and GET
 * /api/v1/operations/{operation_id} against a real kube-apiserver and
 * FerretDB: the set comparison, validation against the region registry and
 * the plan, isolation between accounts, and operations kept in the database
 * across API server restarts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RegionOperationDoc } from '../../apiserver/src/operations/model.js';
import { OperationStore } from '../../apiserver/src/operations/operation-store.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

type Detail = {
  detail: { code: string; violations?: Array<{ loc: unknown[]; type: string }> } & Record<
    string,
    unknown
  >;
};

/** The default installation: one region. */
let single: TestServer;
/** An installation whose registry lists a second region. */
let multi: TestServer;
let owner: Caller;
let stranger: Caller;

beforeAll(async () => {
  single = await startControlPlaneServer({ regions: ['local'] });
  multi = await startControlPlaneServer({ regions: ['local', 'eu-west'], shareWith: single });
  owner = await createCaller(single);
  stranger = await createCaller(single);
});

afterAll(async () => {
  await multi.close();
  await single.close();
});

async function newWorkspace(server: TestServer, name: string, extra = {}, caller = owner) {
  const res = await call<{ id: string; regions: string[] }>(server, 'POST', '/api/v1/workspaces', {
    key: caller.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const changeRegions = (
  server: TestServer,
  ref: string,
  body: unknown,
  caller: Caller | null = owner,
) =>
  call<Record<string, unknown> & Detail>(server, 'PATCH', `/api/v1/workspaces/${ref}/regions`, {
    key: caller?.key ?? null,
    body,
  });

const operationCount = () => single.db.collection('region_operations').countDocuments();

describe('PATCH /api/v1/workspaces/{workspace}/regions', () => {
  beforeAll(async () => {
    await newWorkspace(single, 'home-only');
  });

  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await changeRegions(single, 'home-only', { regions: ['local'] }, null);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it.each([
    ['missing regions', {}, ['body', 'regions'], 'missing'],
    ['an empty set', { regions: [] }, ['body', 'regions'], 'array_too_short'],
    ['regions that are not an array', { regions: 'local' }, ['body', 'regions'], 'type_error'],
    ['null regions', { regions: null }, ['body', 'regions'], 'null_not_allowed'],
    ['an unknown key', { regions: ['local'], mode: 'fast' }, ['body'], 'extra_forbidden'],
  ])('returns 422 VALIDATION_ERROR for %s', async (_, body, loc, type) => {
    const res = await changeRegions(single, 'home-only', body);
    expect(res.status).toBe(422);
    expect(res.body.detail.violations).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('returns 400 REGION_NOT_AVAILABLE for a region the registry does not list, and changes nothing', async () => {
    // With one region there is nowhere to move: any other set names an unknown region.
    const res = await changeRegions(single, 'home-only', { regions: ['local', 'eu-west'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'REGION_NOT_AVAILABLE',
      field: 'regions',
      allowed: ['local'],
    });
    const after = await call<{ regions: string[] }>(single, 'GET', '/api/v1/workspaces/home-only', {
      key: owner.key,
    });
    expect(after.body.regions).toEqual(['local']);
    expect(await operationCount()).toBe(0);
  });

  it("returns 400 PLAN_LIMIT_EXCEEDED for more regions than the plan's cap", async () => {
    const free = await createCaller(multi, { tier: 'free' });
    await newWorkspace(multi, 'free-space', {}, free);
    const res = await changeRegions(multi, 'free-space', { regions: ['local', 'eu-west'] }, free);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      allowed: 1,
      tier: 'free',
    });
  });

  it("returns 403 AGENT_KEY_FORBIDDEN with an agent's own key", async () => {
    const agent = await call<{ id: string }>(single, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name: 'region-agent' },
    });
    const key = await single.accounts.createKey({
      accountId: owner.accountId,
      environment: 'live',
      agentId: agent.body.id,
    });
    const res = await call<Detail>(single, 'PATCH', '/api/v1/workspaces/home-only/regions', {
      key: key.text,
      body: { regions: ['local'] },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
  });

  it("returns 404 WORKSPACE_NOT_FOUND for an unknown workspace and another account's, by name and id", async () => {
    const theirs = await newWorkspace(single, 'their-space', {}, stranger);
    for (const ref of ['no-such-space', 'their-space', theirs.id]) {
      const res = await changeRegions(single, ref, { regions: ['local'] });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
    }
  });

  it('answers 200 RegionChangeNoOp for the current set, in any order and with repeats', async () => {
    const ws = await newWorkspace(single, 'no-op-space');
    for (const regions of [['local'], ['local', 'local']]) {
      const res = await changeRegions(single, ws.id, { regions });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'no_op',
        scope: 'workspace',
        current_regions: ['local'],
        workspace_name: 'no-op-space',
      });
    }
    await newWorkspace(multi, 'two-region-space', { regions: ['local', 'eu-west'] });
    const reordered = await changeRegions(multi, 'two-region-space', {
      regions: ['eu-west', 'local'],
    });
    expect(reordered.status).toBe(200);
    expect(reordered.body).toMatchObject({
      status: 'no_op',
      current_regions: ['local', 'eu-west'],
    });
    expect(reordered.body).not.toHaveProperty('operation_id');
    expect(await operationCount()).toBe(0);
  });

  it('refuses to move a workspace to another registered region until region changes can run, recording nothing', async () => {
    await newWorkspace(multi, 'wants-to-move');
    const res = await changeRegions(multi, 'wants-to-move', { regions: ['eu-west'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ code: 'REGION_NOT_AVAILABLE', allowed: ['local'] });
    expect(await operationCount()).toBe(0);
  });
});

describe('GET /api/v1/operations/{operation_id}', () => {
  const operation = (accountId: string): RegionOperationDoc => {
    const at = new Date('2026-11-01T10:00:00Z');
    return {
      _id: randomUUID(),
      accountId,
      environment: 'live',
      scope: 'workspace',
      workspaceId: randomUUID(),
      workspaceName: 'moving',
      fromRegions: ['local'],
      toRegions: ['eu-west', 'local'],
      state: 'running',
      agents: [{ agentId: randomUUID(), name: 'svc', state: 'placing', readyRegions: ['local'] }],
      collections: [{ name: 'docs', state: 'copying', pointsCopied: 1200 }],
      error: null,
      createdAt: at,
      updatedAt: at,
      startedAt: at,
      finishedAt: null,
    };
  };
  const get = (server: TestServer, id: string, caller: Caller | null = owner) =>
    call<Record<string, unknown> & Detail>(server, 'GET', `/api/v1/operations/${id}`, {
      key: caller?.key ?? null,
    });

  let mine: RegionOperationDoc;
  let theirs: RegionOperationDoc;

  beforeAll(async () => {
    const store = OperationStore.open(single.db);
    mine = operation(owner.accountId);
    theirs = operation(stranger.accountId);
    await store.insert(mine);
    await store.insert(theirs);
  });

  it('returns 401 MISSING_API_KEY without a key', async () => {
    expect((await get(single, mine._id, null)).status).toBe(401);
  });

  it('returns 422 VALIDATION_ERROR for an id that is not a UUID', async () => {
    const res = await get(single, 'not-a-uuid');
    expect(res.status).toBe(422);
    expect(res.body.detail.violations).toContainEqual(
      expect.objectContaining({ loc: ['path', 'operation_id'] }),
    );
  });

  it("returns 404 OPERATION_NOT_FOUND for an unknown id and for another account's operation", async () => {
    for (const id of [randomUUID(), theirs._id]) {
      const res = await get(single, id);
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatchObject({ code: 'OPERATION_NOT_FOUND', operation_id: id });
    }
  });

  it('returns the operation with its progress per agent and per collection', async () => {
    const res = await get(single, mine._id.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      operation_id: mine._id,
      kind: 'region_change',
      scope: 'workspace',
      workspace_name: 'moving',
      state: 'running',
      from_regions: ['local'],
      to_regions: ['eu-west', 'local'],
      regions_to_add: ['eu-west'],
      regions_to_remove: [],
      progress: {
        agents: [
          {
            agent_id: mine.agents[0]!.agentId,
            name: 'svc',
            state: 'placing',
            ready_regions: ['local'],
          },
        ],
        collections: [{ name: 'docs', state: 'copying', points_copied: 1200 }],
      },
      error: null,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-01T10:00:00.000Z',
      started_at: '2026-11-01T10:00:00.000Z',
      finished_at: null,
    });
  });

  it('is still there after the API server restarts', async () => {
    const before = await get(multi, mine._id);
    expect(before.status).toBe(200);
    const first = await startControlPlaneServer({ regions: ['local'], shareWith: single });
    await first.close();
    const restarted = await startControlPlaneServer({ regions: ['local'], shareWith: single });
    try {
      const after = await get(restarted, mine._id);
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
    } finally {
      await restarted.close();
    }
  });
});

describe('the OpenAPI document', () => {
  type Op = { responses: Record<string, { 'x-error-codes'?: string[] }> };
  type Doc = {
    paths: Record<string, Record<string, Op>>;
    components: { schemas: Record<string, { required?: string[] }> };
  };

  it('documents the region-change and operation routes with their shapes and codes', async () => {
    const doc = (await call<Doc>(single, 'GET', '/openapi.json')).body;
    const patch = doc.paths['/api/v1/workspaces/{workspace}/regions']?.patch;
    expect(Object.keys(patch?.responses ?? {})).toContain('200');
    expect(patch?.responses['400']?.['x-error-codes']?.sort()).toEqual([
      'PLAN_LIMIT_EXCEEDED',
      'REGION_NOT_AVAILABLE',
    ]);
    expect(patch?.responses['404']?.['x-error-codes']).toEqual(['WORKSPACE_NOT_FOUND']);
    const poll = doc.paths['/api/v1/operations/{operation_id}']?.get;
    expect(poll?.responses['404']?.['x-error-codes']).toEqual(['OPERATION_NOT_FOUND']);
    expect(doc.components.schemas.RegionChangeNoOp?.required?.sort()).toEqual([
      'current_regions',
      'scope',
      'status',
    ]);
    expect(doc.components.schemas.RegionsUpdateRequest?.required).toEqual(['regions']);
    expect(doc.components.schemas.Operation?.required).toEqual(
      expect.arrayContaining(['operation_id', 'state', 'progress', 'error', 'created_at']),
    );
  });
});
