/** POST /api/v1/agents, in the order 401, 422, 400, 409, 201, plus concurrency and a dependency outage. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';

let server: TestServer;
let caller: Caller;
let free: Caller;

beforeAll(async () => {
  server = await startControlPlaneServer();
  caller = await createCaller(server, { tier: 'starter' });
  free = await createCaller(server, { tier: 'free' });
});

afterAll(async () => {
  await server.close();
});

type Detail = {
  detail: {
    code: string;
    violations?: Array<{ loc: unknown[]; type: string; msg: string }>;
  } & Record<string, unknown>;
};
const create = (body: unknown, who: Caller | null = caller) =>
  call<Detail>(server, 'POST', '/api/v1/agents', { key: who?.key ?? null, body });

describe('POST /api/v1/agents', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await create({ name: 'anon' }, null);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it.each([
    ['missing name', {}, ['body', 'name'], 'missing'],
    ['empty name', { name: '' }, ['body', 'name'], 'missing'],
    ['name over 56 characters', { name: 'a'.repeat(57) }, ['body', 'name'], 'string_too_long'],
    ['uppercase name', { name: 'Hello' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['leading hyphen', { name: '-hello' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['trailing hyphen', { name: 'hello-' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['doubled hyphen', { name: 'hel--lo' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['reserved word', { name: 'admin' }, ['body', 'name'], 'reserved_name'],
    [
      'UUID-shaped name',
      { name: '123e4567-e89b-12d3-a456-426614174000' },
      ['body', 'name'],
      'uuid_name',
    ],
    ['unknown runtime', { name: 'x1', runtime: 'python' }, ['body', 'runtime'], 'enum'],
    ['unknown agent_type', { name: 'x1', agent_type: 'daemon' }, ['body', 'agent_type'], 'enum'],
    [
      'memory_mb as a string',
      { name: 'x1', memory_mb: '256' },
      ['body', 'memory_mb'],
      'type_error',
    ],
    ['fractional memory_mb', { name: 'x1', memory_mb: 256.5 }, ['body', 'memory_mb'], 'int_type'],
    [
      'keep_alive on a job',
      { name: 'x1', agent_type: 'job', keep_alive: true },
      ['body', 'keep_alive'],
      'keep_alive_job',
    ],
    [
      'allowed_workers not strings',
      { name: 'x1', allowed_workers: [1] },
      ['body', 'allowed_workers', 0],
      'type_error',
    ],
    [
      'absolute entrypoint',
      { name: 'x1', entrypoint: '/etc/passwd' },
      ['body', 'entrypoint'],
      'relative_path',
    ],
    [
      'short workspace_name',
      { name: 'x1', workspace_name: 'ab' },
      ['body', 'workspace_name'],
      'string_too_short',
    ],
  ])('returns 422 VALIDATION_ERROR for %s', async (_case, body, loc, type) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    expect(res.body.detail.violations).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('returns 422 VALIDATION_ERROR for malformed JSON and for a body that is not an object', async () => {
    const bad = await call<Detail>(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.violations?.[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const array = await create([1, 2]);
    expect(array.status).toBe(422);
    const empty = await call<Detail>(server, 'POST', '/api/v1/agents', { key: caller.key });
    expect(empty.status).toBe(422);
    expect(empty.body.detail.violations?.[0]).toMatchObject({ loc: ['body'], type: 'missing' });
  });

  it('returns 400 PLAN_LIMIT_EXCEEDED naming the restriction for dockerfile on free', async () => {
    const res = await create({ name: 'docker-free', runtime: 'dockerfile' }, free);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'runtime',
      tier: 'free',
    });
    expect(String(res.body.detail.message)).toMatch(/dockerfile.*free/);
  });

  it.each([
    ['memory above the plan', { memory_mb: 4096 }, 'memory_mb'],
    ['memory below the plan', { memory_mb: 64 }, 'memory_mb'],
    ['idle timeout above the plan', { idle_timeout_minutes: 61 }, 'idle_timeout_minutes'],
    ['a tier above the account', { tier: 'performance' }, 'tier'],
  ])('returns 400 PLAN_LIMIT_EXCEEDED for %s', async (_case, extra, field) => {
    const res = await create({ name: `cap-${Math.random().toString(36).slice(2, 8)}`, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', field });
  });

  it('returns 400 PLAN_LIMIT_EXCEEDED for keep_alive and two regions on free', async () => {
    const keep = await create({ name: 'always-on', keep_alive: true }, free);
    expect(keep.body.detail).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', field: 'keep_alive' });
    const regions = await create({ name: 'two-regions', regions: ['local', 'eu-west'] }, free);
    expect(regions.body.detail).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'regions',
      allowed: 1,
    });
  });

  it('returns 400 REGION_NOT_AVAILABLE for a region the installation does not offer', async () => {
    const res = await create({ name: 'mars-agent', regions: ['mars'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'REGION_NOT_AVAILABLE',
      allowed: ['local', 'eu-west'],
    });
  });

  it('creates an agent with every field of the Agent record and the contract defaults', async () => {
    const res = await call<Record<string, unknown>>(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: { name: 'hello-world', description: 'greets' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/agents/${String(res.body.id)}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: caller.accountId,
      name: 'hello-world',
      description: 'greets',
      agent_type: 'service',
      tier: 'free',
      runtime: 'python3.11',
      memory_mb: 256,
      idle_timeout_minutes: 5,
      keep_alive: false,
      serves_websocket: null,
      status: 'pending',
      database_collection: null,
      model_name: null,
      entrypoint: null,
      spawn_enabled: false,
      allowed_workers: [],
      parent_agent_id: null,
      workspace_name: null,
      deployed: false,
      url: null,
      regions: ['local'],
      pending_regions: [],
      regions_total: 1,
      regions_ready: 0,
      is_degraded: false,
      degraded_reason: null,
      failure_code: null,
      failure_message: null,
      cron_schedule: null,
      cron_next_run_at: null,
      cron_paused: false,
      cron_last_run_at: null,
      cron_last_status: null,
      cron_last_reason: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('accepts a full AgentCreate within the plan', async () => {
    const res = await call<Record<string, unknown>>(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: {
        name: 'full-agent',
        agent_type: 'job',
        tier: 'starter',
        runtime: 'dockerfile',
        memory_mb: 1024,
        idle_timeout_minutes: 30,
        keep_alive: false,
        database_collection: 'docs',
        model_name: 'gpt',
        entrypoint: 'src/main.py',
        spawn_enabled: true,
        allowed_workers: ['worker-a', 'worker-a', 'worker-b'],
        workspace_name: 'research',
        regions: ['eu-west'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      agent_type: 'job',
      runtime: 'dockerfile',
      memory_mb: 1024,
      allowed_workers: ['worker-a', 'worker-b'],
      workspace_name: 'research',
      regions: ['eu-west'],
      spawn_enabled: true,
    });
  });

  it('returns 409 AGENT_NAME_TAKEN for a name the account already uses', async () => {
    expect((await create({ name: 'twice' })).status).toBe(201);
    const res = await create({ name: 'twice' });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ code: 'AGENT_NAME_TAKEN', agent: 'twice' });
  });

  it('lets two accounts use the same name', async () => {
    const other = await createCaller(server);
    expect((await create({ name: 'shared-name' })).status).toBe(201);
    expect((await create({ name: 'shared-name' }, other)).status).toBe(201);
  });

  it('creates exactly one agent when ten requests race for one name', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => create({ name: 'racer' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    const list = await call<{ items: Array<{ name: string }> }>(
      server,
      'GET',
      '/api/v1/agents?limit=100',
      { key: caller.key },
    );
    expect(list.body.items.filter((a) => a.name === 'racer')).toHaveLength(1);
  });

  it('returns 503 SERVICE_UNAVAILABLE and writes nothing when the cluster API is unreachable', async () => {
    const dead = new KubeConfig();
    dead.loadFromOptions({
      clusters: [{ name: 'dead', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u', token: 'x' }],
      contexts: [{ name: 'dead', cluster: 'dead', user: 'u' }],
      currentContext: 'dead',
    });
    const cut = await startControlPlaneServer({ kc: dead, shareWith: server });
    try {
      const res = await call<Detail>(cut, 'POST', '/api/v1/agents', {
        key: caller.key,
        body: { name: 'no-cluster' },
      });
      expect(res.status).toBe(503);
      expect(res.body.detail.code).toBe('SERVICE_UNAVAILABLE');
      // Nothing written: the name is still free.
      expect(await server.db.collection('agent_names').countDocuments({ name: 'no-cluster' })).toBe(
        0,
      );
      expect((await create({ name: 'no-cluster' })).status).toBe(201);
    } finally {
      await cut.close();
    }
  });
});
