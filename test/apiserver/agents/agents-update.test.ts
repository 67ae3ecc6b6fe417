/** PATCH and DELETE /api/v1/agents/{agent}. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { readAgent } from './operator-view.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;

type Agent = Record<string, unknown> & { id: string; name: string; url: string | null };
type Detail = {
  detail: { code: string; violations?: Array<{ loc: unknown[]; type: string }> } & Record<
    string,
    unknown
  >;
};

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server, { tier: 'starter' });
  stranger = await createCaller(server);
});

afterAll(async () => {
  await server.close();
});

async function newAgent(name: string, extra: Record<string, unknown> = {}): Promise<Agent> {
  const res = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const patch = (ref: string, body: unknown, key: string | null = owner.key) =>
  call<Agent & Detail>(server, 'PATCH', `/api/v1/agents/${ref}`, { key, body });

describe('PATCH /api/v1/agents/{agent}', () => {
  it('returns 401 without a key', async () => {
    const agent = await newAgent('patch-auth');
    expect((await patch(agent.id, { description: 'x' }, null)).status).toBe(401);
  });

  it('returns 422 VALIDATION_ERROR for a bad field', async () => {
    const agent = await newAgent('patch-invalid');
    for (const [body, loc] of [
      [{ name: 'Bad Name' }, ['body', 'name']],
      [{ memory_mb: 'lots' }, ['body', 'memory_mb']],
      [{ agent_type: 'job', keep_alive: true }, ['body', 'keep_alive']],
    ] as const) {
      const res = await patch(agent.id, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.violations?.map((v) => v.loc)).toContainEqual(loc);
    }
  });

  it('returns 400 RUNTIME_IMMUTABLE for a runtime change, and accepts the same runtime', async () => {
    const agent = await newAgent('patch-runtime', { runtime: 'node22' });
    const res = await patch(agent.id, { runtime: 'python3.12' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({
      code: 'RUNTIME_IMMUTABLE',
      field: 'runtime',
      current: 'node22',
    });
    expect((await patch(agent.id, { runtime: 'node22' })).status).toBe(200);
  });

  it('returns 400 PLAN_LIMIT_EXCEEDED for memory beyond the plan', async () => {
    const agent = await newAgent('patch-memory');
    const res = await patch(agent.id, { memory_mb: 100_000 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatchObject({ code: 'PLAN_LIMIT_EXCEEDED', field: 'memory_mb' });
  });

  it("returns 404 AGENT_NOT_FOUND for another account's agent", async () => {
    const agent = await newAgent('patch-foreign');
    const res = await patch(agent.id, { description: 'mine now' }, stranger.key);
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
  });

  it('renames keeping the id and url; the old name is freed and the new one resolves', async () => {
    const agent = await newAgent('before-rename');
    const res = await patch('before-rename', { name: 'after-rename' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: agent.id, name: 'after-rename', url: agent.url });
    expect(
      (await call(server, 'GET', '/api/v1/agents/after-rename', { key: owner.key })).status,
    ).toBe(200);
    expect(
      (await call(server, 'GET', '/api/v1/agents/before-rename', { key: owner.key })).status,
    ).toBe(404);
    const cr = await readAgent(server.kc, owner.namespace, agent.id);
    expect(cr.metadata.labels?.['svc.dev/agent-name']).toBe('after-rename');
    expect((await newAgent('before-rename')).name).toBe('before-rename');
  });

  it('returns 409 AGENT_NAME_TAKEN when renaming onto another agent', async () => {
    await newAgent('taken-target');
    const agent = await newAgent('rename-source');
    const res = await patch(agent.id, { name: 'taken-target' });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ code: 'AGENT_NAME_TAKEN', agent: 'taken-target' });
    expect(
      (await call<Agent>(server, 'GET', `/api/v1/agents/${agent.id}`, { key: owner.key })).body
        .name,
    ).toBe('rename-source');
  });

  it('leaves omitted fields untouched, clears nullable ones with null, and null workspace_name leaves the workspace', async () => {
    const agent = await newAgent('patch-fields', {
      description: 'keep me',
      workspace_name: 'team-a',
      model_name: 'm1',
      memory_mb: 512,
    });
    const res = await patch(agent.id, {
      model_name: null,
      workspace_name: null,
      memory_mb: null,
      spawn_enabled: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      description: 'keep me',
      workspace_name: null,
      model_name: null,
      memory_mb: 512,
      spawn_enabled: true,
    });
    expect(Date.parse(String(res.body.updated_at))).toBeGreaterThanOrEqual(
      Date.parse(String(agent.updated_at)),
    );
  });
});

describe('DELETE /api/v1/agents/{agent}', () => {
  it('returns 401 without a key', async () => {
    const agent = await newAgent('delete-auth');
    expect((await call(server, 'DELETE', `/api/v1/agents/${agent.id}`)).status).toBe(401);
  });

  it("returns 404 AGENT_NOT_FOUND for another account's agent and leaves it alone", async () => {
    const agent = await newAgent('delete-foreign');
    const res = await call<Detail>(server, 'DELETE', `/api/v1/agents/${agent.id}`, {
      key: stranger.key,
    });
    expect(res.status).toBe(404);
    expect(
      (await call(server, 'GET', `/api/v1/agents/${agent.id}`, { key: owner.key })).status,
    ).toBe(200);
  });

  it('accepts the deletion with 202, then the agent is gone and its name is free', async () => {
    const agent = await newAgent('delete-me');
    const res = await call(server, 'DELETE', '/api/v1/agents/delete-me', { key: owner.key });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: agent.id, name: 'delete-me', status: 'deleting' });
    expect(
      (await call(server, 'GET', `/api/v1/agents/${agent.id}`, { key: owner.key })).status,
    ).toBe(404);
    expect(
      (await call(server, 'DELETE', `/api/v1/agents/${agent.id}`, { key: owner.key })).status,
    ).toBe(404);
    expect((await newAgent('delete-me')).id).not.toBe(agent.id);
  });
});
