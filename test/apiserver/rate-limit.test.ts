/** The control plane's sliding-window rate limit, through the real app and FerretDB. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type TestServer,
} from './control-plane-server.js';
import { LIMIT_STALENESS_MS } from '../../apiserver/src/rate-limit/mongo-window-store.js';

// A clock the tests move: the window is 60 s and a test cannot wait that long.
let clock = Date.UTC(2026, 0, 1, 12, 0, 0);
let server: TestServer;

beforeAll(async () => {
  server = await startControlPlaneServer({
    now: () => clock,
    plansJson: JSON.stringify({
      free: { requestsPerMinute: 3 },
      starter: { requestsPerMinute: 1000 },
    }),
  });
});

afterAll(async () => {
  await server.close();
});

describe('rate limiting', () => {
  it('sends X-RateLimit headers on successful responses', async () => {
    const caller = await createCaller(server, { tier: 'free' });
    clock += 60_000 * 5;
    const res = await call(server, 'GET', '/api/v1/agents', { key: caller.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(60);
  });

  it('returns 429 RATE_LIMIT_EXCEEDED with limit, retry_after_seconds and Retry-After once the budget is spent', async () => {
    const caller = await createCaller(server, { tier: 'free' });
    clock = Math.floor(clock / 60_000) * 60_000 + 60_000 * 10 + 10_000; // 10 s into a fresh minute
    for (let i = 0; i < 3; i++)
      expect((await call(server, 'GET', '/api/v1/agents', { key: caller.key })).status).toBe(200);
    const res = await call<{ detail: Record<string, unknown> }>(server, 'GET', '/api/v1/agents', {
      key: caller.key,
    });
    expect(res.status).toBe(429);
    expect(res.body.detail).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', limit: 3 });
    const retry = res.body.detail.retry_after_seconds as number;
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('retry-after')).toBe(String(retry));

    // A rejected request does not count, and the window slides: after Retry-After it serves again.
    clock += retry * 1000;
    expect((await call(server, 'GET', '/api/v1/agents', { key: caller.key })).status).toBe(200);
  });

  it('keeps each account to its own budget', async () => {
    const a = await createCaller(server, { tier: 'free' });
    const b = await createCaller(server, { tier: 'free' });
    clock += 60_000 * 5;
    for (let i = 0; i < 3; i++) await call(server, 'GET', '/api/v1/agents', { key: a.key });
    expect((await call(server, 'GET', '/api/v1/agents', { key: a.key })).status).toBe(429);
    expect((await call(server, 'GET', '/api/v1/agents', { key: b.key })).status).toBe(200);
  });

  it('exempts GET /api/v1/health, which needs no key', async () => {
    clock += 60_000 * 5;
    for (let i = 0; i < 10; i++)
      expect((await call(server, 'GET', '/api/v1/health')).status).toBe(200);
  });

  it('sends no rate-limit headers and never limits an enterprise account', async () => {
    const caller = await createCaller(server, { tier: 'enterprise' });
    for (let i = 0; i < 5; i++) {
      const res = await call(server, 'GET', '/api/v1/agents', { key: caller.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
    }
  });

  it("is shared by every API server replica, each seeing the others' counts at most LIMIT_STALENESS_MS old", async () => {
    const replica = await startControlPlaneServer({
      now: () => clock,
      shareWith: server,
      plansJson: JSON.stringify({ free: { requestsPerMinute: 3 } }),
    });
    // The clock past the staleness bound (both replicas age their readings by it), so each
    // replica's next request reads the other's count.
    const fresh = () => (clock += LIMIT_STALENESS_MS);
    const list = (at: TestServer) => call(at, 'GET', '/api/v1/agents', { key: caller.key });
    const caller = await createCaller(server, { tier: 'free' });
    try {
      // A second into a fresh minute: moving the clock on for staleness stays in its bucket.
      clock = Math.floor(clock / 60_000) * 60_000 + 60_000 * 5 + 1_000;
      expect((await list(server)).status).toBe(200);
      expect((await list(replica)).status).toBe(200);
      fresh();
      expect((await list(server)).status).toBe(200);
      fresh();
      expect((await list(replica)).status).toBe(429);
      fresh();
      expect((await list(server)).status).toBe(429);

      // Within the bound, a replica admits at most what the other admitted meanwhile on top.
      const other = await createCaller(server, { tier: 'free' });
      clock += 60_000 * 5;
      const burst = async (at: TestServer) => {
        const codes = [];
        for (let i = 0; i < 5; i++)
          codes.push((await call(at, 'GET', '/api/v1/agents', { key: other.key })).status);
        return codes;
      };
      const [a, b] = await Promise.all([burst(server), burst(replica)]);
      const admitted = [...a, ...b].filter((code) => code === 200).length;
      expect(a.filter((code) => code === 200).length).toBeLessThanOrEqual(3);
      expect(b.filter((code) => code === 200).length).toBeLessThanOrEqual(3);
      expect(admitted).toBeGreaterThanOrEqual(3);
      expect(admitted).toBeLessThanOrEqual(6);
    } finally {
      await replica.close();
    }
  });
});
