/**
 * GET /api/v1/auth/me against the real stack: the account behind the key,
 * its environment, plan limits, subscription and home region, the key's id
 * and prefix, and never the key itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from './control-plane-server.js';

type Me = {
  id: string;
  name: string;
  environment: string;
  plan: string;
  limits: Record<string, unknown> & {
    agent_quota: number;
    memory_mb: { min: number; max: number };
  };
  subscription_status: string;
  home_region: string;
  key: { id: string; prefix: string; label: string | null; agent_id: string | null };
};
type Detail = { detail: { code: string } };

let server: TestServer;
let live: Caller;
let testEnv: Caller;

beforeAll(async () => {
  server = await startControlPlaneServer({
    plansJson: JSON.stringify({ starter: { agentQuota: 7 } }),
  });
  live = await createCaller(server, { tier: 'starter', subscriptionStatus: 'trialing' });
  testEnv = await createCaller(server, { tier: 'free', environment: 'test' });
});

afterAll(async () => {
  await server.close();
});

describe('GET /api/v1/auth/me', () => {
  it('returns 401 MISSING_API_KEY without a key and INVALID_API_KEY with a wrong one', async () => {
    const none = await call<Detail>(server, 'GET', '/api/v1/auth/me');
    expect(none.status).toBe(401);
    expect(none.body.detail.code).toBe('MISSING_API_KEY');
    const wrong = await call<Detail>(server, 'GET', '/api/v1/auth/me', {
      key: `${live.key.slice(0, -4)}abcd`,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail.code).toBe('INVALID_API_KEY');
  });

  it("returns the account, the key's environment, the plan's limits and the key's id and prefix", async () => {
    const res = await call<Me>(server, 'GET', '/api/v1/auth/me', { key: live.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: live.accountId,
      environment: 'live',
      plan: 'starter',
      subscription_status: 'trialing',
      home_region: 'local',
      key: { id: live.keyId, label: null, agent_id: null },
    });
    expect(res.body.name).toMatch(/^acct-/);
    // The plan's limits are the server's, overrides included.
    expect(res.body.limits.agent_quota).toBe(7);
    expect(res.body.limits.memory_mb).toEqual({ min: 128, max: 2048 });
    expect(live.key.startsWith(res.body.key.prefix)).toBe(true);
    expect(res.body.key.prefix.length).toBeLessThan(live.key.length);
    expect(res.text).not.toContain(live.key);
  });

  it('answers for a test-environment key with that environment and its own plan', async () => {
    const res = await call<Me>(server, 'GET', '/api/v1/auth/me', { key: testEnv.key });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(testEnv.accountId);
    expect(res.body.environment).toBe('test');
    expect(res.body.plan).toBe('free');
    expect(res.body.key.prefix.startsWith('svc_test_')).toBe(true);
  });

  it('is documented in the OpenAPI document with the Me schema', async () => {
    const doc = await call<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { required?: string[] }> };
    }>(server, 'GET', '/openapi.json');
    expect(doc.body.paths['/api/v1/auth/me']?.get?.responses['200']).toBeDefined();
    expect(doc.body.components.schemas.Me?.required).toEqual(
      expect.arrayContaining(['id', 'environment', 'plan', 'limits', 'key']),
    );
  });
});
