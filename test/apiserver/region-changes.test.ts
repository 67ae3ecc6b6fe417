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
import { CustomResourceClient } from '../../common/kube/custom-resources.js';
import { ANNOTATIONS, LABELS } from '../../crds/src/index.js';
import { eventually } from '../operator/operator-harness.js';
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

/** An operation as GET /api/v1/operations/{id} answers it. */
type Operation = Record<string, unknown> & {
  state: string;
  started_at: string | null;
  finished_at: string | null;
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

  it('answers 202 RegionChangeAccepted for a changed set and records a pending operation', async () => {
    await newWorkspace(multi, 'wants-to-move');
    const res = await changeRegions(multi, 'wants-to-move', { regions: ['eu-west', 'local'] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      operation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      scope: 'workspace',
      workspace_name: 'wants-to-move',
      from_regions: ['local'],
      to_regions: ['eu-west', 'local'],
      regions_to_add: ['eu-west'],
      regions_to_remove: [],
    });
    expect(res.headers.get('location')).toBe(`/api/v1/operations/${res.body.operation_id}`);
    // No runner on this server: the operation waits, pending, for one.
    const op = await call<Record<string, unknown>>(
      multi,
      'GET',
      `/api/v1/operations/${String(res.body.operation_id)}`,
      { key: owner.key },
    );
    expect(op.body).toMatchObject({ state: 'pending', started_at: null, error: null });
  });

  it('returns 409 REGION_CHANGE_IN_PROGRESS for a second change while the first has not finished', async () => {
    await newWorkspace(multi, 'busy-space');
    const first = await changeRegions(multi, 'busy-space', { regions: ['eu-west'] });
    expect(first.status).toBe(202);
    const before = await operationCount();
    const second = await changeRegions(multi, 'busy-space', { regions: ['local', 'eu-west'] });
    expect(second.status).toBe(409);
    expect(second.body.detail).toMatchObject({
      code: 'REGION_CHANGE_IN_PROGRESS',
      operation_id: first.body.operation_id,
    });
    expect(await operationCount()).toBe(before);
  });

  it("returns 400 PLAN_LIMIT_EXCEEDED once the plan's region changes in 30 days are used, recording nothing", async () => {
    const limited = await startControlPlaneServer({
      regions: ['local', 'eu-west'],
      shareWith: single,
      plansJson: JSON.stringify({ starter: { regionChangesPer30Days: 1 } }),
    });
    try {
      const caller = await createCaller(limited);
      await newWorkspace(limited, 'first-move', {}, caller);
      await newWorkspace(limited, 'second-move', {}, caller);
      const first = await changeRegions(limited, 'first-move', { regions: ['eu-west'] }, caller);
      expect(first.status).toBe(202);
      const before = await operationCount();
      const second = await changeRegions(limited, 'second-move', { regions: ['eu-west'] }, caller);
      expect(second.status).toBe(400);
      expect(second.body.detail).toMatchObject({
        code: 'PLAN_LIMIT_EXCEEDED',
        field: 'region_changes',
        allowed: 1,
        tier: 'starter',
      });
      expect(await operationCount()).toBe(before);
      // A no-op costs nothing and is still answered.
      const noop = await changeRegions(limited, 'second-move', { regions: ['local'] }, caller);
      expect(noop.status).toBe(200);
      // Another account has its own budget.
      const other = await createCaller(limited);
      await newWorkspace(limited, 'other-move', {}, other);
      expect(
        (await changeRegions(limited, 'other-move', { regions: ['eu-west'] }, other)).status,
      ).toBe(202);
    } finally {
      await limited.close();
    }
  });
});

describe('a region change carried out by the runner', () => {
  /** Two regions on one Kubernetes API (a name list): a move relabels the one copy. */
  let moving: TestServer;
  let caller: Caller;
  const timings = { pollMs: 200, leaseMs: 1500, edgeGraceMs: 0, backoffMs: 100 };

  beforeAll(async () => {
    moving = await startControlPlaneServer({
      regions: ['local', 'eu-west'],
      regionChanges: timings,
    });
    caller = await createCaller(moving);
  });

  afterAll(async () => {
    await moving.close();
  });

  async function settled(server: TestServer, id: string) {
    return eventually(
      () =>
        call<Operation>(server, 'GET', `/api/v1/operations/${id}`, { key: caller.key }).then(
          (r) => r.body,
        ),
      (op) => ['succeeded', 'failed', 'rolled_back'].includes(op.state),
      `operation ${id} finished`,
      30_000,
    );
  }

  it('moves the workspace and each of its agents to the new set', async () => {
    await newWorkspace(moving, 'on-the-move', {}, caller);
    const agent = await call<{ id: string }>(moving, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: { name: 'moving-job', agent_type: 'job', workspace_name: 'on-the-move' },
    });
    expect(agent.status).toBe(201);
    const res = await changeRegions(moving, 'on-the-move', { regions: ['eu-west'] }, caller);
    expect(res.status).toBe(202);
    const op = await settled(moving, String(res.body.operation_id));
    expect(op).toMatchObject({
      state: 'succeeded',
      scope: 'workspace',
      error: null,
      from_regions: ['local'],
      to_regions: ['eu-west'],
      progress: {
        agents: [
          {
            agent_id: agent.body.id,
            name: 'moving-job',
            state: 'done',
            ready_regions: ['eu-west'],
          },
        ],
        collections: [],
      },
    });
    expect(op.started_at).not.toBeNull();
    expect(op.finished_at).not.toBeNull();
    const ws = await call<{ regions: string[] }>(moving, 'GET', '/api/v1/workspaces/on-the-move', {
      key: caller.key,
    });
    expect(ws.body.regions).toEqual(['eu-west']);
    const copy = await new CustomResourceClient(moving.kc).get(
      'Agent',
      caller.namespace,
      agent.body.id,
    );
    expect(copy?.metadata.annotations?.['svc.dev/regions']).toBe('eu-west');
    expect(copy?.metadata.labels?.[LABELS.region]).toBe('eu-west');
    expect(copy?.metadata.annotations?.[ANNOTATIONS.draining]).toBeUndefined();
    // Another change may start once this one finished.
    const back = await changeRegions(moving, 'on-the-move', { regions: ['local'] }, caller);
    expect(back.status).toBe(202);
    expect((await settled(moving, String(back.body.operation_id))).state).toBe('succeeded');
  });

  it('resumes an operation whose runner stopped, once its lease runs out', async () => {
    const acceptor = await startControlPlaneServer({ regions: ['local', 'eu-west'] });
    const owner = await createCaller(acceptor);
    await newWorkspace(acceptor, 'left-behind', {}, owner);
    const res = await changeRegions(acceptor, 'left-behind', { regions: ['eu-west'] }, owner);
    expect(res.status).toBe(202);
    const id = String(res.body.operation_id);
    // A runner that took the operation and stopped without a word: its lease runs 1.5 s.
    const store = OperationStore.open(acceptor.db);
    expect(await store.claim(id, 'stopped-runner', 1500)).toMatchObject({ epoch: 1 });
    const taken = Date.now();
    const resumer = await startControlPlaneServer({
      regions: ['local', 'eu-west'],
      shareWith: acceptor,
      regionChanges: timings,
    });
    try {
      const op = await eventually(
        () => store.load(id),
        (o) => o?.state === 'succeeded',
        'the operation taken over and finished',
        30_000,
      );
      expect(op?.startedAt?.getTime()).toBeGreaterThanOrEqual(taken + 1400);
      const leases = await acceptor.db
        .collection('region_operation_leases')
        .find({ operationId: id })
        .toArray();
      expect(leases.map((l) => l.epoch)).toEqual([2]);
    } finally {
      await resumer.close();
      await acceptor.close();
    }
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
    expect(Object.keys(patch?.responses ?? {})).toContain('202');
    expect(patch?.responses['400']?.['x-error-codes']?.sort()).toEqual([
      'PLAN_LIMIT_EXCEEDED',
      'REGION_NOT_AVAILABLE',
    ]);
    expect(patch?.responses['404']?.['x-error-codes']).toEqual(['WORKSPACE_NOT_FOUND']);
    expect(patch?.responses['409']?.['x-error-codes']).toEqual(['REGION_CHANGE_IN_PROGRESS']);
    expect(doc.components.schemas.RegionChangeAccepted?.required?.sort()).toEqual([
      'from_regions',
      'operation_id',
      'regions_to_add',
      'regions_to_remove',
      'scope',
      'status',
      'to_regions',
      'workspace_name',
    ]);
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
    const move = doc.paths['/api/v1/collections/{collection_id}']?.patch;
    expect(Object.keys(move?.responses ?? {})).toEqual(expect.arrayContaining(['200', '202']));
    expect(move?.responses['404']?.['x-error-codes']?.sort()).toEqual([
      'COLLECTION_NOT_FOUND',
      'WORKSPACE_NOT_FOUND',
    ]);
    expect(move?.responses['409']?.['x-error-codes']?.sort()).toEqual([
      'COLLECTION_NAME_TAKEN',
      'REGION_CHANGE_IN_PROGRESS',
    ]);
    expect(move?.responses['422']?.['x-error-codes']).toEqual(
      expect.arrayContaining(['COLLECTION_REGIONS_NOT_IN_SCOPE', 'STARTER_REGION_CONSISTENCY']),
    );
    expect(doc.components.schemas.CollectionUpdateRequest).toBeDefined();
  });
});
