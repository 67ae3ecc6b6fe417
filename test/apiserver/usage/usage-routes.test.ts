/**
 * The usage routes' edges against the real stack: the operator's
 * POST /internal/usage opened only by its capability token (a report sent
 * twice is stored once, seconds are its stop minus its start), the vector
 * plane's requests counted (through the fast path too), and an agent's own
 * key refused the account's summary.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { internalToken, USAGE_TOKEN_SUBJECT } from '../../../common/internal-token.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { startVectorServer, type VectorServer } from '../../vector/vector-server.js';
import { capturingLogger } from '../../harness/capturing-logger.js';

type Totals = {
  count: number;
  seconds: number;
  mb_seconds: number;
  events: number;
  peak_storage_mb: number;
};
type Summary = {
  totals: Record<string, Totals>;
  agents: Array<{ agent_id: string; totals: Record<string, Totals> }>;
};
type Detail = { detail: { code: string } };

let server: TestServer;
let vectors: VectorServer;
let owner: Caller;

/** Every line the API server logged, at debug. */
const logLines: string[] = [];

beforeAll(async () => {
  server = await startControlPlaneServer({ log: capturingLogger('apiserver', logLines) });
  vectors = await startVectorServer({ db: server.db });
  owner = await createCaller(server, { tier: 'enterprise' });
}, 60_000);

afterAll(async () => {
  await vectors?.close();
  await server?.close();
});

const summary = async () => {
  await server.usage!.writer.flush();
  return (await call<Summary>(server, 'GET', '/api/v1/usage/summary', { key: owner.key })).body;
};

describe('POST /internal/usage', () => {
  const agentId = randomUUID();
  const report = (id: string) => ({
    events: [
      {
        id,
        account_id: owner.accountId,
        environment: 'live',
        agent_id: agentId,
        deployment_id: 'run-1',
        kind: 'compute',
        started_at: '2026-11-02T10:00:00.000Z',
        ended_at: '2026-11-02T10:00:02.500Z',
        memory_mb: 512,
      },
    ],
  });
  const post = (token: string | null, body: unknown) =>
    call<Detail>(server, 'POST', `/internal/usage${token === null ? '' : `?token=${token}`}`, {
      body,
    });

  it('returns 401 INTERNAL_TOKEN_INVALID without its token, with another purpose’s, or with an API key, and stores nothing', async () => {
    const before = await server.db.collection('usage_events').countDocuments({
      accountId: owner.accountId,
    });
    for (const token of [null, internalToken(server.internalSecret, 'logs:write', agentId)]) {
      const res = await post(token, report('compute:x'));
      expect(res.status).toBe(401);
      expect(res.body.detail.code).toBe('INTERNAL_TOKEN_INVALID');
    }
    const withKey = await call<Detail>(server, 'POST', '/internal/usage', {
      key: owner.key,
      body: report('compute:x'),
    });
    expect(withKey.status).toBe(401);
    expect(
      await server.db.collection('usage_events').countDocuments({ accountId: owner.accountId }),
    ).toBe(before);
  });

  it('stores a report once however often it is sent, with seconds from its times', async () => {
    const token = internalToken(server.internalSecret, 'usage:write', USAGE_TOKEN_SUBJECT);
    for (let i = 0; i < 2; i++)
      expect((await post(token, report('compute:run:r1'))).status).toBe(204);
    const res = await call<Summary>(
      server,
      'GET',
      '/api/v1/usage/summary?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z',
      { key: owner.key },
    );
    const agent = res.body.agents.find((a) => a.agent_id === agentId)!;
    expect(agent.totals.compute).toMatchObject({ events: 1, seconds: 2.5, mb_seconds: 1280 });
  });
});

describe('vector-plane requests', () => {
  it('counts each authenticated vector request, whichever lane answers it, and no refused one', async () => {
    const before = (await summary()).totals.vector_request!.count;
    const headers = { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' };
    const created = await fetch(`${vectors.base}/api/v1/collections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'metered', vectors: { size: 2, distance: 'Cosine' } }),
    });
    expect(created.status).toBeLessThan(300);
    const upsert = await fetch(`${vectors.base}/api/v1/collections/metered/points`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ points: [{ id: 1, vector: [1, 0] }] }),
    });
    expect(upsert.status).toBe(200);
    const search = await fetch(`${vectors.base}/api/v1/collections/metered/points/search`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ vector: [1, 0], limit: 1 }),
    });
    expect(search.status).toBe(200);
    const refused = await fetch(`${vectors.base}/api/v1/collections`, {
      headers: { authorization: 'Bearer svc_live_notakey' },
    });
    expect(refused.status).toBe(401);
    // The vector plane's writer flushes on close; a second plane keeps serving the tests after.
    await vectors.close();
    vectors = await startVectorServer({ db: server.db });
    expect((await summary()).totals.vector_request!.count).toBe(before + 3);
  });
});

describe('vector storage', () => {
  it('is sampled per tenant and summed as its peak, not its total', async () => {
    const headers = { authorization: `Bearer ${owner.key}`, 'content-type': 'application/json' };
    const created = await fetch(`${vectors.base}/api/v1/collections`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'stored', vectors: { size: 512, distance: 'Dot' } }),
    });
    expect(created.status).toBeLessThan(300);
    const points = Array.from({ length: 600 }, (_, i) => ({
      id: i + 1,
      vector: Array.from({ length: 512 }, (_, j) => (j === i % 512 ? 1 : 0)),
    }));
    const upsert = await fetch(`${vectors.base}/api/v1/collections/stored/points?wait=true`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ points }),
    });
    expect(upsert.status).toBe(200);
    // Two samples of the same storage: the summary shows it once, as the peak.
    expect(await vectors.sampleStorage()).toBe(1);
    expect(await vectors.sampleStorage()).toBe(1);
    // The vector plane's writer flushes on close; a second plane keeps serving the tests after.
    await vectors.close();
    vectors = await startVectorServer({ db: server.db });
    const storage = (await summary()).totals.vector_storage!;
    // 600 points of 512 float32 (2048 bytes each) and the payload the gateway stamps on each
    // (under 200 bytes): once, not the 2 samples added up.
    expect(storage.events).toBe(2);
    expect(storage.peak_storage_mb).toBeGreaterThanOrEqual((600 * 2048) / 2 ** 20);
    expect(storage.peak_storage_mb).toBeLessThan((600 * (2048 + 200)) / 2 ** 20);
  });
});

describe('GET /api/v1/usage/summary', () => {
  it("returns 403 AGENT_KEY_FORBIDDEN for an agent's own key", async () => {
    const agentKey = await server.accounts.createKey({
      accountId: owner.accountId,
      environment: 'live',
      agentId: randomUUID(),
    });
    const res = await call<Detail>(server, 'GET', '/api/v1/usage/summary', { key: agentKey.text });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe('AGENT_KEY_FORBIDDEN');
  });

  it('returns 422 VALIDATION_ERROR for an empty or malformed from or to (an empty one was a 500)', async () => {
    for (const query of ['to=', 'from=', 'from=yesterday', 'to=2026-13-01T00:00:00Z']) {
      const res = await call<Detail>(server, 'GET', `/api/v1/usage/summary?${query}`, {
        key: owner.key,
      });
      expect([query, res.status, res.text]).toEqual([
        query,
        422,
        expect.stringContaining('VALIDATION_ERROR'),
      ]);
    }
  });
});

describe('logs', () => {
  it('hold no key, secret or capability token', () => {
    const token = internalToken(server.internalSecret, 'usage:write', USAGE_TOKEN_SUBJECT);
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.some((l) => l.includes('/internal/usage'))).toBe(true);
    for (const line of logLines) {
      expect(line).not.toContain(owner.key);
      expect(line).not.toContain(server.internalSecret);
      expect(line).not.toContain(token);
    }
  });
});
