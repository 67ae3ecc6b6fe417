/** GET /api/v1/agents/{agent} and GET /api/v1/agents: by UUID or name, isolation, pagination, filters. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';

let server: TestServer;
let owner: Caller;
let stranger: Caller;
let agentId: string;

type Agent = { id: string; name: string; agent_type: string; workspace_name: string | null };
type Page = {
  items: Agent[];
  total: number;
  limit: number;
  offset: number;
  next_offset: number | null;
};
type Detail = { detail: { code: string } & Record<string, unknown> };

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  stranger = await createCaller(server);
  const created = await call<Agent>(server, 'POST', '/api/v1/agents', {
    key: owner.key,
    body: { name: 'reader' },
  });
  agentId = created.body.id;
  for (const [name, agent_type, workspace_name] of [
    ['job-one', 'job', 'ws-a'],
    ['job-two', 'job', null],
    ['svc-one', 'service', 'ws-a'],
  ] as const) {
    await call(server, 'POST', '/api/v1/agents', {
      key: owner.key,
      body: { name, agent_type, workspace_name },
    });
  }
});

afterAll(async () => {
  await server.close();
});

describe('GET /api/v1/agents/{agent}', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    expect((await call(server, 'GET', `/api/v1/agents/${agentId}`)).status).toBe(401);
  });

  it("returns 404 AGENT_NOT_FOUND for another account's agent, by UUID and by name", async () => {
    for (const ref of [agentId, 'reader']) {
      const res = await call<Detail>(server, 'GET', `/api/v1/agents/${ref}`, { key: stranger.key });
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('returns 404 AGENT_NOT_FOUND for an unknown UUID and an unknown name, exactly as for a foreign agent', async () => {
    const foreign = await call<Detail>(server, 'GET', `/api/v1/agents/${agentId}`, {
      key: stranger.key,
    });
    for (const ref of ['00000000-0000-4000-8000-000000000000', 'no-such-agent']) {
      const res = await call<Detail>(server, 'GET', `/api/v1/agents/${ref}`, { key: owner.key });
      expect(res.status).toBe(404);
      expect(Object.keys(res.body.detail).sort()).toEqual(Object.keys(foreign.body.detail).sort());
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('returns the agent by UUID (any case) and by name', async () => {
    for (const ref of [agentId, agentId.toUpperCase(), 'reader']) {
      const res = await call<Agent>(server, 'GET', `/api/v1/agents/${ref}`, { key: owner.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: agentId, name: 'reader' });
    }
  });
});

describe('GET /api/v1/agents', () => {
  it('returns 422 VALIDATION_ERROR for a bad limit or filter', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'offset=-1',
      'limit=abc',
      'agent_type=daemon',
      'status=sleeping',
    ]) {
      const res = await call<Detail>(server, 'GET', `/api/v1/agents?${query}`, { key: owner.key });
      expect([query, res.status]).toEqual([query, 422]);
      expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    }
  });

  it("lists only the caller's agents, by name, in the documented envelope", async () => {
    const res = await call<Page>(server, 'GET', '/api/v1/agents', { key: owner.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, limit: 20, offset: 0, next_offset: null });
    expect(res.body.items.map((a) => a.name)).toEqual(['job-one', 'job-two', 'reader', 'svc-one']);
    const theirs = await call<Page>(server, 'GET', '/api/v1/agents', { key: stranger.key });
    expect(theirs.body).toMatchObject({ total: 0, items: [] });
  });

  it('pages with limit, offset and next_offset', async () => {
    const first = await call<Page>(server, 'GET', '/api/v1/agents?limit=3', { key: owner.key });
    expect(first.body.items).toHaveLength(3);
    expect(first.body.next_offset).toBe(3);
    const second = await call<Page>(
      server,
      'GET',
      `/api/v1/agents?limit=3&offset=${first.body.next_offset}`,
      {
        key: owner.key,
      },
    );
    expect(second.body.items.map((a) => a.name)).toEqual(['svc-one']);
    expect(second.body.next_offset).toBeNull();
  });

  it('filters by agent_type, status and workspace_name', async () => {
    const jobs = await call<Page>(server, 'GET', '/api/v1/agents?agent_type=job', {
      key: owner.key,
    });
    expect(jobs.body.items.map((a) => a.name).sort()).toEqual(['job-one', 'job-two']);
    const pending = await call<Page>(server, 'GET', '/api/v1/agents?status=pending', {
      key: owner.key,
    });
    expect(pending.body.total).toBe(4);
    const running = await call<Page>(server, 'GET', '/api/v1/agents?status=running', {
      key: owner.key,
    });
    expect(running.body.total).toBe(0);
    const ws = await call<Page>(server, 'GET', '/api/v1/agents?workspace_name=ws-a', {
      key: owner.key,
    });
    expect(ws.body.items.map((a) => a.name).sort()).toEqual(['job-one', 'svc-one']);
  });
});
