/** Authentication of the control plane, per the contract's codes, against real MongoDB. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from './control-plane-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startControlPlaneServer();
});

afterAll(async () => {
  await server.close();
});

const detail = (res: { body: unknown }) => (res.body as { detail: Record<string, unknown> }).detail;

describe('authentication', () => {
  it('returns 401 MISSING_API_KEY with WWW-Authenticate: Bearer when there is no Authorization header', async () => {
    const res = await call(server, 'GET', '/api/v1/agents');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(detail(res)).toMatchObject({ code: 'MISSING_API_KEY' });
    expect(typeof detail(res).message).toBe('string');
  });

  it('returns 401 MISSING_API_KEY for an Authorization header that is not Bearer', async () => {
    const res = await call(server, 'GET', '/api/v1/agents', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(res.status).toBe(401);
    expect(detail(res).code).toBe('MISSING_API_KEY');
  });

  it('returns 401 INVALID_API_KEY for a malformed or unknown key', async () => {
    for (const key of ['not-a-key', `svc_live_${'A'.repeat(43)}`, `svc_test_${'b'.repeat(43)}`]) {
      const res = await call(server, 'GET', '/api/v1/agents', { key });
      expect(res.status).toBe(401);
      expect(detail(res).code).toBe('INVALID_API_KEY');
    }
  });

  it('returns 401 INVALID_API_KEY for a revoked key', async () => {
    const caller = await createCaller(server);
    expect((await call(server, 'GET', '/api/v1/agents', { key: caller.key })).status).toBe(200);
    await server.accounts.revokeKey(caller.keyId);
    const res = await call(server, 'GET', '/api/v1/agents', { key: caller.key });
    expect(res.status).toBe(401);
    expect(detail(res).code).toBe('INVALID_API_KEY');
  });

  it('returns 403 ACCOUNT_SUSPENDED for a suspended account, and serves it again once reinstated', async () => {
    const caller = await createCaller(server);
    await server.accounts.updateAccount(caller.accountId, { suspended: true });
    const res = await call(server, 'GET', '/api/v1/agents', { key: caller.key });
    expect(res.status).toBe(403);
    expect(detail(res).code).toBe('ACCOUNT_SUSPENDED');
    await server.accounts.updateAccount(caller.accountId, { suspended: false });
    expect((await call(server, 'GET', '/api/v1/agents', { key: caller.key })).status).toBe(200);
  });

  it.each(['canceled', 'unpaid', 'incomplete'] as const)(
    'returns 403 AUTH_SUBSCRIPTION_INACTIVE with subscription_status for a %s subscription',
    async (subscriptionStatus) => {
      const caller = await createCaller(server, { subscriptionStatus });
      const res = await call(server, 'GET', '/api/v1/agents', { key: caller.key });
      expect(res.status).toBe(403);
      expect(detail(res)).toMatchObject({
        code: 'AUTH_SUBSCRIPTION_INACTIVE',
        subscription_status: subscriptionStatus,
      });
    },
  );

  it.each(['active', 'trialing', 'past_due'] as const)(
    'serves a %s subscription',
    async (subscriptionStatus) => {
      const caller = await createCaller(server, { subscriptionStatus });
      expect((await call(server, 'GET', '/api/v1/agents', { key: caller.key })).status).toBe(200);
    },
  );

  it('returns 500 AUTHENTICATION_ERROR when the key store cannot be read', async () => {
    const broken = await startControlPlaneServer({ mongoDown: true });
    try {
      const res = await call(broken, 'GET', '/api/v1/agents', {
        key: `svc_live_${'A'.repeat(43)}`,
      });
      expect(res.status).toBe(500);
      expect(detail(res).code).toBe('AUTHENTICATION_ERROR');
    } finally {
      await broken.close();
    }
  });
});

describe('environments', () => {
  it('keeps live and test data apart for one account', async () => {
    const live = await createCaller(server, { environment: 'live' });
    const { text: testKey } = await server.accounts.createKey({
      accountId: live.accountId,
      environment: 'test',
    });
    const created = await call(server, 'POST', '/api/v1/agents', {
      key: live.key,
      body: { name: 'prod-only' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;

    expect((await call(server, 'GET', `/api/v1/agents/${id}`, { key: testKey })).status).toBe(404);
    expect((await call(server, 'GET', '/api/v1/agents/prod-only', { key: testKey })).status).toBe(
      404,
    );
    const testList = await call<{ total: number }>(server, 'GET', '/api/v1/agents', {
      key: testKey,
    });
    expect(testList.body.total).toBe(0);
    // The same name is free in the test environment.
    expect(
      (await call(server, 'POST', '/api/v1/agents', { key: testKey, body: { name: 'prod-only' } }))
        .status,
    ).toBe(201);
  });
});
