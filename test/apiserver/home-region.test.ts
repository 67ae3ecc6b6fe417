/**
 * PATCH /api/v1/users/me/home-region against the real stack (kube-apiserver
 * for agents, FerretDB for accounts): validated against the region registry
 * and the plan's region scope, and shown by GET /api/v1/auth/me afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

type Detail = {
  detail: { code: string; allowed?: string[]; existing_regions?: string[]; violations?: unknown[] };
};
type Me = { id: string; home_region: string };

const PATH = '/api/v1/users/me/home-region';
let server: TestServer;

beforeAll(async () => {
  server = await startControlPlaneServer({ regions: ['local', 'eu-west'] });
});

afterAll(async () => {
  await server.close();
});

const patch = (who: Caller | null, body: unknown) =>
  call<Detail & Me>(server, 'PATCH', PATH, { key: who?.key ?? null, body });
const me = async (who: Caller) =>
  (await call<Me>(server, 'GET', '/api/v1/auth/me', { key: who.key })).body;

describe('PATCH /api/v1/users/me/home-region', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await patch(null, { home_region: 'eu-west' });
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it('returns 422 VALIDATION_ERROR for a missing, mistyped or malformed region, or no body', async () => {
    const caller = await createCaller(server, { tier: 'starter' });
    for (const body of [{}, { home_region: 5 }, { home_region: 'EU West' }, { region: 'local' }]) {
      const res = await patch(caller, body);
      expect(res.status).toBe(422);
      expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    }
    // No body at all used to reach the handler as undefined and answer 500.
    const bodiless = await call<Detail>(server, 'PATCH', PATH, {
      key: caller.key,
    });
    expect([bodiless.status, bodiless.body.detail.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect((await me(caller)).home_region).toBe('local');
  });

  it("returns 403 AGENT_KEY_FORBIDDEN for an agent's own key", async () => {
    const caller = await createCaller(server, { tier: 'performance' });
    const agentKey = await server.accounts.createKey({
      accountId: caller.accountId,
      environment: 'live',
      agentId: '00000000-0000-4000-8000-000000000001',
    });
    const res = await call<Detail>(server, 'PATCH', PATH, {
      key: agentKey.text,
      body: { home_region: 'eu-west' },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
    expect((await me(caller)).home_region).toBe('local');
  });

  it('returns 400 REGION_NOT_AVAILABLE for a region the registry does not list', async () => {
    const caller = await createCaller(server, { tier: 'performance' });
    const res = await patch(caller, { home_region: 'mars' });
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe('REGION_NOT_AVAILABLE');
    expect(res.body.detail.allowed).toEqual(['local', 'eu-west']);
  });

  it('returns 422 STARTER_REGION_CONSISTENCY on a single-region plan whose agents are elsewhere', async () => {
    const caller = await createCaller(server, { tier: 'free' });
    const created = await call(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: { name: 'pinned' },
    });
    expect(created.status).toBe(201);
    const res = await patch(caller, { home_region: 'eu-west' });
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe('STARTER_REGION_CONSISTENCY');
    expect(res.body.detail.existing_regions).toEqual(['local']);
    expect((await me(caller)).home_region).toBe('local');
  });

  it('moves an empty single-region account, and auth/me shows the new home region', async () => {
    const caller = await createCaller(server, { tier: 'starter' });
    const res = await patch(caller, { home_region: 'eu-west' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: caller.accountId, home_region: 'eu-west' });
    expect((await me(caller)).home_region).toBe('eu-west');
    // Agents created afterwards are placed in it.
    const created = await call<{ regions: string[] }>(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: { name: 'moved' },
    });
    expect(created.status).toBe(201);
    expect(created.body.regions).toEqual(['eu-west']);
  });

  it('lets a multi-region plan move away from its agents, and setting it again is a no-op', async () => {
    const caller = await createCaller(server, { tier: 'performance' });
    await call(server, 'POST', '/api/v1/agents', { key: caller.key, body: { name: 'stays' } });
    const moved = await patch(caller, { home_region: 'eu-west' });
    expect(moved.status).toBe(200);
    const again = await patch(caller, { home_region: 'eu-west' });
    expect(again.status).toBe(200);
    expect((await me(caller)).home_region).toBe('eu-west');
  });
});
