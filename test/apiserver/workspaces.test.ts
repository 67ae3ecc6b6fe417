/**
 * The workspace routes against a real kube-apiserver and FerretDB: create,
 * list, get, update, delete and the agents of a workspace; every validation
 * rule, isolation between accounts, and agents moving in and out through
 * workspace_name.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, PLURALS } from '../../crds/src/index.js';
import { collections } from '../../apiserver/src/store/database.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

type Workspace = {
  id: string;
  name: string;
  description: string | null;
  regions: string[];
  agent_count: number;
  created_at: string;
  updated_at: string;
};
type Page<T> = {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_offset: number | null;
};
type Detail = {
  detail: { code: string; violations?: Array<{ loc: unknown[]; type: string }> } & Record<
    string,
    unknown
  >;
};

let server: TestServer;
let owner: Caller;
let stranger: Caller;

beforeAll(async () => {
  server = await startControlPlaneServer({ regions: ['local', 'eu-west', 'us-east'] });
  owner = await createCaller(server);
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

const create = (body: unknown, caller: Caller = owner) =>
  call<Workspace & Detail>(server, 'POST', '/api/v1/workspaces', { key: caller.key, body });

async function newWorkspace(name: string, caller: Caller = owner, extra = {}): Promise<Workspace> {
  const res = await create({ name, ...extra }, caller);
  expect(res.status).toBe(201);
  return res.body;
}

async function newAgent(name: string, workspace_name: string | null, caller: Caller = owner) {
  const res = await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
    key: caller.key,
    body: { name, workspace_name },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** A key minted for one agent, as a deployment's SVC_API_KEY is. */
async function agentKey(caller: Caller, agentId: string): Promise<string> {
  const key = await server.accounts.createKey({
    accountId: caller.accountId,
    environment: 'live',
    agentId,
  });
  return key.text;
}

describe('POST /api/v1/workspaces', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await call<Detail>(server, 'POST', '/api/v1/workspaces', {
      body: { name: 'no-key' },
    });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it.each([
    ['a missing name', {}, ['body', 'name'], 'missing'],
    ['a name of 2 characters', { name: 'ab' }, ['body', 'name'], 'string_too_short'],
    ['a name of 64 characters', { name: 'a'.repeat(64) }, ['body', 'name'], 'string_too_long'],
    ['an uppercase name', { name: 'Research' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['an underscore', { name: 'team_a' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['a leading hyphen', { name: '-team' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['a trailing hyphen', { name: 'team-' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['a name that is a UUID', { name: randomUUID() }, ['body', 'name'], 'uuid_name'],
    ['a name that is not a string', { name: 42 }, ['body', 'name'], 'type_error'],
    [
      'an empty regions array',
      { name: 'empty-r', regions: [] },
      ['body', 'regions'],
      'array_too_short',
    ],
    [
      'regions that are not an array',
      { name: 'str-r', regions: 'local' },
      ['body', 'regions'],
      'type_error',
    ],
    [
      'an empty region name',
      { name: 'blank-r', regions: [''] },
      ['body', 'regions', 0],
      'string_too_short',
    ],
    [
      'a description over 2000 characters',
      { name: 'long-d', description: 'x'.repeat(2001) },
      ['body', 'description'],
      'string_too_long',
    ],
    ['an unknown key', { name: 'extra-k', tier: 'free' }, ['body'], 'extra_forbidden'],
  ])('returns 422 VALIDATION_ERROR for %s', async (_, body, loc, type) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    expect(res.body.detail.violations).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('returns 400 REGION_NOT_AVAILABLE for a region the registry does not list, and creates nothing', async () => {
    const res = await create({ name: 'on-mars', regions: ['local', 'mars'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'REGION_NOT_AVAILABLE',
      field: 'regions',
      allowed: ['local', 'eu-west', 'us-east'],
    });
    expect(
      (await call(server, 'GET', '/api/v1/workspaces/on-mars', { key: owner.key })).status,
    ).toBe(404);
  });

  it("returns 400 PLAN_LIMIT_EXCEEDED beyond the plan's region cap", async () => {
    const free = await createCaller(server, { tier: 'free' });
    const res = await create({ name: 'two-regions', regions: ['local', 'eu-west'] }, free);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'regions',
      allowed: 1,
      tier: 'free',
    });
    // The starter plan's cap is 2; three is one too many.
    const starter = await create({
      name: 'three-regions',
      regions: ['local', 'eu-west', 'us-east'],
    });
    expect(starter.status).toBe(400);
    expect(starter.body.detail).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', allowed: 2 });
  });

  it("returns 403 AGENT_KEY_FORBIDDEN with an agent's own key", async () => {
    const key = await agentKey(owner, await newAgent('key-holder', null));
    const res = await call<Detail>(server, 'POST', '/api/v1/workspaces', {
      key,
      body: { name: 'from-agent' },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
  });

  it('creates a workspace in the home region when regions are omitted', async () => {
    const res = await create({ name: 'research', description: 'team space' });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/api/v1/workspaces/research');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'research',
      description: 'team space',
      regions: ['local'],
      agent_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // The state is the Workspace resource in the account's namespace.
    const cr = (await server.kc
      .makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi)
      .getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: owner.namespace,
        plural: PLURALS.Workspace,
        name: res.body.id,
      })) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(cr.metadata.labels['svc.dev/workspace-name']).toBe('research');
    expect(cr.spec).toMatchObject({
      name: 'research',
      userId: owner.accountId,
      regions: ['local'],
    });
  });

  it('takes the regions given, without repeats, and null as omitted', async () => {
    const res = await create({ name: 'two-place', regions: ['eu-west', 'local', 'eu-west'] });
    expect(res.status).toBe(201);
    expect(res.body.regions).toEqual(['eu-west', 'local']);
    const nullRegions = await create({ name: 'null-regions', regions: null, description: null });
    expect(nullRegions.status).toBe(201);
    expect(nullRegions.body).toMatchObject({ regions: ['local'], description: null });
  });

  it('returns 409 WORKSPACE_NAME_TAKEN for a name the account already uses, not for another account', async () => {
    await newWorkspace('shared-name');
    const again = await create({ name: 'shared-name' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatchObject({
      code: 'WORKSPACE_NAME_TAKEN',
      workspace: 'shared-name',
    });
    expect((await create({ name: 'shared-name' }, stranger)).status).toBe(201);
  });

  it('lets exactly one of two concurrent creates of one name win', async () => {
    const results = await Promise.all([create({ name: 'racing' }), create({ name: 'racing' })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });
});

describe('GET /api/v1/workspaces', () => {
  let lister: Caller;

  beforeAll(async () => {
    lister = await createCaller(server);
    for (const name of ['list-c', 'list-a', 'list-b']) await newWorkspace(name, lister);
    await newAgent('in-list-b', 'list-b', lister);
  });

  it('returns 401 INVALID_API_KEY for a key that does not resolve', async () => {
    const res = await call<Detail>(server, 'GET', '/api/v1/workspaces', {
      key: 'svc_live_nonsense',
    });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('INVALID_API_KEY');
  });

  it.each([
    ['limit 0', 'limit=0', 'limit'],
    ['limit 101', 'limit=101', 'limit'],
    ['a negative offset', 'offset=-1', 'offset'],
    ['a limit that is not a number', 'limit=many', 'limit'],
  ])('returns 422 VALIDATION_ERROR for %s', async (_, qs, field) => {
    const res = await call<Detail>(server, 'GET', `/api/v1/workspaces?${qs}`, { key: lister.key });
    expect(res.status).toBe(422);
    expect(res.body.detail.violations).toContainEqual(
      expect.objectContaining({ loc: ['query', field] }),
    );
  });

  it("lists only the account's workspaces, by name, with their agent counts, a page at a time", async () => {
    const first = await call<Page<Workspace>>(server, 'GET', '/api/v1/workspaces?limit=2', {
      key: lister.key,
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, next_offset: 2 });
    expect(first.body.items.map((w) => [w.name, w.agent_count])).toEqual([
      ['list-a', 0],
      ['list-b', 1],
    ]);
    const second = await call<Page<Workspace>>(
      server,
      'GET',
      '/api/v1/workspaces?limit=2&offset=2',
      { key: lister.key },
    );
    expect(second.body).toMatchObject({ total: 3, offset: 2, next_offset: null });
    expect(second.body.items.map((w) => w.name)).toEqual(['list-c']);
  });

  it('is an empty page for an account without workspaces', async () => {
    const fresh = await createCaller(server);
    const res = await call<Page<Workspace>>(server, 'GET', '/api/v1/workspaces', {
      key: fresh.key,
    });
    expect(res.body).toEqual({ items: [], total: 0, limit: 20, offset: 0, next_offset: null });
  });
});

describe('GET /api/v1/workspaces/{workspace}', () => {
  it('returns 404 WORKSPACE_NOT_FOUND for a name or id the account does not have', async () => {
    for (const ref of ['no-such-space', randomUUID()]) {
      const res = await call<Detail>(server, 'GET', `/api/v1/workspaces/${ref}`, {
        key: owner.key,
      });
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatchObject({ code: 'WORKSPACE_NOT_FOUND', workspace: ref });
    }
  });

  it('finds a workspace by name and by id alike', async () => {
    const made = await newWorkspace('by-either');
    for (const ref of ['by-either', made.id, made.id.toUpperCase()]) {
      const res = await call<Workspace>(server, 'GET', `/api/v1/workspaces/${ref}`, {
        key: owner.key,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(made);
    }
  });
});

describe('PATCH /api/v1/workspaces/{workspace}', () => {
  const patch = (ref: string, body: unknown, caller: Caller = owner) =>
    call<Workspace & Detail>(server, 'PATCH', `/api/v1/workspaces/${ref}`, {
      key: caller.key,
      body,
    });

  it('returns 422 VALIDATION_ERROR for regions (changed by the regions route) and a long description', async () => {
    await newWorkspace('patch-bad');
    const regions = await patch('patch-bad', { regions: ['eu-west'] });
    expect(regions.status).toBe(422);
    expect(regions.body.detail.violations).toContainEqual(
      expect.objectContaining({
        loc: ['body'],
        type: 'extra_forbidden',
        msg: expect.stringContaining('PATCH /api/v1/workspaces/{workspace}/regions'),
      }),
    );
    const long = await patch('patch-bad', { description: 'x'.repeat(2001) });
    expect(long.status).toBe(422);
    expect(long.body.detail.violations).toContainEqual(
      expect.objectContaining({ loc: ['body', 'description'], type: 'string_too_long' }),
    );
  });

  it('returns 400 WORKSPACE_NAME_IMMUTABLE for a different name, and keeps the name', async () => {
    const made = await newWorkspace('fixed-name');
    const res = await patch(made.id, { name: 'other-name', description: 'changed' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'WORKSPACE_NAME_IMMUTABLE',
      workspace: 'fixed-name',
    });
    const after = await call<Workspace>(server, 'GET', `/api/v1/workspaces/${made.id}`, {
      key: owner.key,
    });
    expect(after.body).toMatchObject({ name: 'fixed-name', description: null });
  });

  it('updates the description, accepts the same name, and clears the description with null', async () => {
    const made = await newWorkspace('describe-me', owner, { description: 'old' });
    const res = await patch('describe-me', { name: 'describe-me', description: 'new' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, name: 'describe-me', description: 'new' });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.updated_at));
    const untouched = await patch('describe-me', {});
    expect(untouched.body.description).toBe('new');
    const cleared = await patch('describe-me', { description: null });
    expect(cleared.body.description).toBeNull();
  });
});

describe('DELETE /api/v1/workspaces/{workspace}', () => {
  const remove = (ref: string, caller: Caller = owner) =>
    call<{ status: string; secrets_deleted: number } & Detail>(
      server,
      'DELETE',
      `/api/v1/workspaces/${ref}`,
      { key: caller.key },
    );

  it('returns 404 WORKSPACE_NOT_FOUND for a workspace that does not exist', async () => {
    const res = await remove('never-made');
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
  });

  it('returns 409 WORKSPACE_NOT_EMPTY naming its agents and collections, and deletes nothing', async () => {
    const made = await newWorkspace('busy-space');
    const agentId = await newAgent('busy-agent', 'busy-space');
    // Collection metadata as the vector plane records a workspace collection.
    await collections(server.db).vectorCollections.insertOne({
      _id: `live:${owner.accountId}:busy-space:docs`,
      accountId: owner.accountId,
      environment: 'live',
      workspace: 'busy-space',
      name: 'docs',
      engineName: `w_live_${owner.accountId.replaceAll('-', '')}_busy-space_docs`,
      size: 4,
      distance: 'Cosine',
      description: null,
      regions: ['local'],
      status: 'active',
      version: 1,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    const res = await remove('busy-space');
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({
      code: 'WORKSPACE_NOT_EMPTY',
      workspace: 'busy-space',
      dependents: { agents: [{ id: agentId, name: 'busy-agent' }], collections: ['docs'] },
    });
    const still = await call<Workspace>(server, 'GET', `/api/v1/workspaces/${made.id}`, {
      key: owner.key,
    });
    expect(still.body).toMatchObject({ name: 'busy-space', agent_count: 1 });

    // Emptied (the agent moved out, the collection gone), it deletes.
    await call(server, 'PATCH', `/api/v1/agents/${agentId}`, {
      key: owner.key,
      body: { workspace_name: null },
    });
    const onlyCollection = await remove('busy-space');
    expect(onlyCollection.body.detail.dependents).toEqual({ agents: [], collections: ['docs'] });
    await collections(server.db).vectorCollections.deleteOne({
      _id: `live:${owner.accountId}:busy-space:docs`,
    });
    expect((await remove('busy-space')).status).toBe(200);
  });

  it('deletes an empty workspace with its secrets, counting them, and frees its name', async () => {
    const made = await newWorkspace('short-lived');
    const core = server.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: owner.namespace,
      body: {
        metadata: { name: `svc-ws-secrets-${made.id}` },
        stringData: { API_TOKEN: 'one', DB_URL: 'two' },
      },
    });
    const res = await remove(made.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'deleted', secrets_deleted: 2 });
    await expect(
      core.readNamespacedSecret({ namespace: owner.namespace, name: `svc-ws-secrets-${made.id}` }),
    ).rejects.toMatchObject({ code: 404 });
    expect(
      (await call(server, 'GET', '/api/v1/workspaces/short-lived', { key: owner.key })).status,
    ).toBe(404);
    expect((await remove('short-lived')).status).toBe(404);
    // The name is free again.
    expect((await create({ name: 'short-lived' })).status).toBe(201);
  });

  it('reports secrets_deleted 0 for a workspace without secrets', async () => {
    await newWorkspace('no-secrets');
    expect((await remove('no-secrets')).body).toEqual({ status: 'deleted', secrets_deleted: 0 });
  });
});

describe('GET /api/v1/workspaces/{workspace}/agents', () => {
  it('returns 404 WORKSPACE_NOT_FOUND for an unknown workspace', async () => {
    const res = await call<Detail>(server, 'GET', '/api/v1/workspaces/nowhere/agents', {
      key: owner.key,
    });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
  });

  it('follows agents moving in, across and out through workspace_name', async () => {
    const member = await createCaller(server);
    await newWorkspace('team-a', member);
    await newWorkspace('team-b', member);
    const mover = await newAgent('mover', 'team-a', member);
    await newAgent('stayer', 'team-a', member);
    await newAgent('outsider', null, member);

    const agentsOf = async (ws: string) =>
      (
        await call<Page<Record<string, unknown>>>(
          server,
          'GET',
          `/api/v1/workspaces/${ws}/agents`,
          { key: member.key },
        )
      ).body;
    const countOf = async (ws: string) =>
      (await call<Workspace>(server, 'GET', `/api/v1/workspaces/${ws}`, { key: member.key })).body
        .agent_count;

    const a = await agentsOf('team-a');
    expect(a).toMatchObject({ total: 2, next_offset: null });
    expect(a.items.map((x) => x.name)).toEqual(['mover', 'stayer']);
    expect(Object.keys(a.items[0]!).sort()).toEqual(
      [
        'id',
        'name',
        'agent_type',
        'status',
        'deployed',
        'url',
        'created_at',
        'updated_at',
        'is_degraded',
        'regions_total',
        'regions_ready',
        'degraded_reason',
        'failure_code',
        'failure_message',
      ].sort(),
    );
    expect(a.items[0]).toMatchObject({
      id: mover,
      agent_type: 'service',
      status: 'pending',
      deployed: false,
      url: null,
    });
    expect(await countOf('team-a')).toBe(2);

    const patchAgent = (body: unknown) =>
      call(server, 'PATCH', `/api/v1/agents/${mover}`, { key: member.key, body });
    expect((await patchAgent({ workspace_name: 'team-b' })).status).toBe(200);
    expect((await agentsOf('team-a')).items.map((x) => x.name)).toEqual(['stayer']);
    expect((await agentsOf('team-b')).items.map((x) => x.name)).toEqual(['mover']);
    expect([await countOf('team-a'), await countOf('team-b')]).toEqual([1, 1]);

    expect((await patchAgent({ workspace_name: null })).status).toBe(200);
    expect(await countOf('team-b')).toBe(0);
    expect((await agentsOf('team-b')).items).toEqual([]);

    // A deleted agent leaves the count at once.
    const stayer = (await agentsOf('team-a')).items[0]!.id as string;
    await call(server, 'DELETE', `/api/v1/agents/${stayer}`, { key: member.key });
    expect(await countOf('team-a')).toBe(0);
  });

  it('pages the agents with limit and offset', async () => {
    const pager = await createCaller(server);
    await newWorkspace('paged', pager);
    for (const name of ['p-one', 'p-two', 'p-three']) await newAgent(name, 'paged', pager);
    const res = await call<Page<{ name: string }>>(
      server,
      'GET',
      '/api/v1/workspaces/paged/agents?limit=2&offset=1',
      { key: pager.key },
    );
    expect(res.body).toMatchObject({ total: 3, limit: 2, offset: 1, next_offset: null });
    expect(res.body.items.map((a) => a.name)).toEqual(['p-three', 'p-two']);
  });
});

describe('isolation between accounts', () => {
  let theirs: Workspace;

  beforeAll(async () => {
    theirs = await newWorkspace('private-space', stranger);
    await newAgent('private-agent', 'private-space', stranger);
  });

  it.each([
    ['GET', ''],
    ['PATCH', ''],
    ['DELETE', ''],
    ['GET', '/agents'],
  ])(
    'returns 404 WORKSPACE_NOT_FOUND on %s {workspace}%s for another account, by name and by id',
    async (method, suffix) => {
      for (const ref of ['private-space', theirs.id]) {
        const res = await call<Detail>(server, method, `/api/v1/workspaces/${ref}${suffix}`, {
          key: owner.key,
          body: method === 'PATCH' ? { description: 'mine now' } : undefined,
        });
        expect(res.status).toBe(404);
        expect(res.body.detail.code).toBe('WORKSPACE_NOT_FOUND');
      }
      const intact = await call<Workspace>(server, 'GET', `/api/v1/workspaces/${theirs.id}`, {
        key: stranger.key,
      });
      expect(intact.body).toMatchObject({ description: null, agent_count: 1 });
    },
  );

  it("never lists another account's workspaces", async () => {
    const res = await call<Page<Workspace>>(server, 'GET', '/api/v1/workspaces?limit=100', {
      key: owner.key,
    });
    expect(res.body.items.map((w) => w.id)).not.toContain(theirs.id);
  });

  it('keeps the test environment apart from live', async () => {
    const testKey = await server.accounts.createKey({
      accountId: owner.accountId,
      environment: 'test',
    });
    const res = await call<Detail>(server, 'GET', '/api/v1/workspaces/research', {
      key: testKey.text,
    });
    expect(res.status).toBe(404);
  });
});

describe('the OpenAPI document', () => {
  type Op = { responses: Record<string, { 'x-error-codes'?: string[] }> };
  type Doc = {
    paths: Record<string, Record<string, Op>>;
    components: {
      schemas: Record<
        string,
        { properties?: Record<string, Record<string, unknown>>; required?: string[] }
      >;
    };
  };
  let doc: Doc;
  const codes = (path: string, method: string, status: number) =>
    doc.paths[path]?.[method]?.responses[String(status)]?.['x-error-codes'] ?? [];

  beforeAll(async () => {
    doc = (await call<Doc>(server, 'GET', '/openapi.json')).body;
  });

  it('documents the Workspace records with the fields the contract requires', () => {
    const { schemas } = doc.components;
    expect(schemas.Workspace?.required?.sort()).toEqual(
      ['id', 'name', 'description', 'regions', 'agent_count', 'created_at', 'updated_at'].sort(),
    );
    expect(schemas.WorkspaceCreate?.properties?.name).toMatchObject({
      minLength: 3,
      maxLength: 63,
    });
    expect(schemas.WorkspaceCreate?.properties?.regions).toMatchObject({ minItems: 1 });
    expect(schemas.WorkspaceDeleteResult?.required?.sort()).toEqual(['secrets_deleted', 'status']);
    expect(schemas.WorkspaceAgent?.required?.sort()).toEqual(
      ['id', 'name', 'agent_type', 'status', 'deployed', 'url', 'created_at', 'updated_at'].sort(),
    );
    expect(schemas.WorkspaceList?.required).toEqual(
      expect.arrayContaining(['items', 'total', 'limit', 'offset', 'next_offset']),
    );
  });

  it('documents the error codes of each workspace route', () => {
    expect(codes('/api/v1/workspaces', 'post', 409)).toEqual(['WORKSPACE_NAME_TAKEN']);
    expect(codes('/api/v1/workspaces', 'post', 400).sort()).toEqual([
      'PLAN_LIMIT_EXCEEDED',
      'REGION_NOT_AVAILABLE',
    ]);
    expect(codes('/api/v1/workspaces/{workspace}', 'patch', 400)).toEqual([
      'WORKSPACE_NAME_IMMUTABLE',
    ]);
    expect(codes('/api/v1/workspaces/{workspace}', 'delete', 409)).toEqual(['WORKSPACE_NOT_EMPTY']);
    for (const [path, method] of [
      ['/api/v1/workspaces/{workspace}', 'get'],
      ['/api/v1/workspaces/{workspace}', 'patch'],
      ['/api/v1/workspaces/{workspace}', 'delete'],
      ['/api/v1/workspaces/{workspace}/agents', 'get'],
    ] as const) {
      expect(codes(path, method, 404)).toEqual(['WORKSPACE_NOT_FOUND']);
    }
  });
});
