/** POST /internal/agents/{agent_id}/logs: the operator's capability token, validation, storage, retention. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { internalToken } from '../../../common/internal-token.js';
import { MAX_MESSAGE_BYTES } from '../../../apiserver/src/logs/log-lines.js';
import type { LogChunkDoc, LogHeadDoc } from '../../../apiserver/src/logs/log-chunks.js';
import { LOG_RETENTION_MS, LogStore } from '../../../apiserver/src/logs/log-store.js';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { ingest, type IngestEntry } from './log-helpers.js';

type Entry = { id: number; timestamp: string; stream: string; level: string; message: string };
type Page = { items: Entry[] };

let server: TestServer;
let owner: Caller;
let agentId: string;
let otherAgentId: string;

const createAgent = async (name: string) =>
  (await call<{ id: string }>(server, 'POST', '/api/v1/agents', { key: owner.key, body: { name } }))
    .body.id;
const read = async (agent: string, query = 'limit=1000') =>
  (await call<Page>(server, 'GET', `/api/v1/agents/${agent}/logs?${query}`, { key: owner.key }))
    .body.items;

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  agentId = await createAgent('shipper');
  otherAgentId = await createAgent('bystander');
});

afterAll(async () => {
  await server.close();
});

const one: IngestEntry[] = [{ stream: 'stdout', message: 'hi' }];

describe('POST /internal/agents/{agent_id}/logs', () => {
  it('returns 422 VALIDATION_ERROR for a malformed body, even with the token', async () => {
    const cases: Array<[string, unknown]> = [
      [
        'too many entries',
        Array.from({ length: 1001 }, () => ({ stream: 'stdout', message: 'x' })),
      ],
      ['unknown stream', [{ stream: 'stdin', message: 'x' }]],
      ['unknown level', [{ stream: 'stdout', message: 'x', level: 'TRACE' }]],
      ['no message', [{ stream: 'stdout' }]],
      ['message not a string', [{ stream: 'stdout', message: 42 }]],
      ['bad timestamp', [{ stream: 'stdout', message: 'x', timestamp: 'yesterday' }]],
      [
        'impossible timestamp',
        [{ stream: 'stdout', message: 'x', timestamp: '2026-13-01T00:00:00Z' }],
      ],
      ['bad deployment id', [{ stream: 'stdout', message: 'x', deployment_id: 'nope' }]],
    ];
    for (const [what, entries] of cases) {
      const res = await ingest(server, agentId, owner.accountId, entries as IngestEntry[]);
      expect([what, res.status]).toEqual([what, 422]);
      expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    }
    const token = internalToken(server.internalSecret, 'logs:write', agentId);
    for (const body of [
      { environment: 'live', entries: one },
      { account_id: owner.accountId, environment: 'staging', entries: one },
      { account_id: owner.accountId, environment: 'live' },
    ]) {
      const res = await call(server, 'POST', `/internal/agents/${agentId}/logs?token=${token}`, {
        body,
      });
      expect(res.status).toBe(422);
    }
    const notUuid = await call(server, 'POST', `/internal/agents/shipper/logs?token=${token}`, {
      body: { account_id: owner.accountId, environment: 'live', entries: one },
    });
    expect(notUuid.status).toBe(422);
  });

  it('returns 413 REQUEST_TOO_LARGE for a body over 1 MiB', async () => {
    const big = Array.from({ length: 70 }, () => ({
      stream: 'stdout' as const,
      message: 'x'.repeat(MAX_MESSAGE_BYTES),
    }));
    const res = await ingest(server, agentId, owner.accountId, big);
    expect(res.status).toBe(413);
    expect(res.body.detail.code).toBe('REQUEST_TOO_LARGE');
  });

  it('returns 401 INTERNAL_TOKEN_INVALID without a token, with a wrong one, or with an API key', async () => {
    const wrong = [
      null,
      'not-a-token',
      internalToken(server.internalSecret, 'artifact:read', agentId),
      internalToken(server.internalSecret, 'logs:write', otherAgentId),
      internalToken('another-secret', 'logs:write', agentId),
    ];
    for (const token of wrong) {
      const res = await ingest(server, agentId, owner.accountId, one, token);
      expect([token, res.status]).toEqual([token, 401]);
      expect(res.body.detail.code).toBe('INTERNAL_TOKEN_INVALID');
    }
    const withKey = await call(server, 'POST', `/internal/agents/${agentId}/logs`, {
      key: owner.key,
      body: { account_id: owner.accountId, environment: 'live', entries: one },
    });
    expect(withKey.status).toBe(401);
    expect(await read(agentId)).toEqual([]);
  });

  it('stores the lines in order with the sent timestamps and levels, cutting long messages', async () => {
    const at = '2030-01-02T03:04:05.678Z';
    const res = await ingest(server, agentId, owner.accountId, [
      { stream: 'system', message: 'Deployment 1 is building' },
      {
        stream: 'stderr',
        message: 'INFO:     Uvicorn running',
        timestamp: at,
        deployment_id: '11111111-1111-4111-8111-111111111111',
      },
      { stream: 'stdout', message: 'z'.repeat(MAX_MESSAGE_BYTES + 10), level: 'DEBUG' },
      { stream: 'stdout', message: '' },
    ]);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // The agent id in the path is read case-insensitively; the token is over the canonical id.
    const upper = await call(
      server,
      'POST',
      `/internal/agents/${agentId.toUpperCase()}/logs?token=${internalToken(server.internalSecret, 'logs:write', agentId)}`,
      { body: { account_id: owner.accountId, environment: 'live', entries: one } },
    );
    expect(upper.status).toBe(204);

    const items = await read('shipper');
    expect(items.map((e) => [e.stream, e.level])).toEqual([
      ['system', 'SYSTEM'],
      ['stderr', 'INFO'],
      ['stdout', 'DEBUG'],
      ['stdout', 'INFO'],
      ['stdout', 'INFO'],
    ]);
    expect(items[1]?.timestamp).toBe(at);
    expect(Buffer.byteLength(items[2]?.message ?? '')).toBe(MAX_MESSAGE_BYTES);
    expect(items[2]?.message.endsWith('…[truncated]')).toBe(true);
    expect(items.map((e) => e.message).slice(3)).toEqual(['', 'hi']);
    expect(await read(otherAgentId)).toEqual([]);
  });

  it('takes 1000 lines in one request and keeps their order', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => ({
      stream: 'stdout' as const,
      message: `n${i}`,
    }));
    expect((await ingest(server, otherAgentId, owner.accountId, lines)).status).toBe(204);
    const items = await read(otherAgentId, 'limit=1000&after_id=0');
    expect(items.map((e) => e.message)).toEqual(lines.map((l) => l.message));
  });

  it('drops lines older than the 7-day retention when the purge runs', async () => {
    const retained = await createAgent('retained');
    const now = Date.now();
    // Each request is stored as one chunk, which expires with its newest line.
    const expired = await ingest(server, retained, owner.accountId, [
      {
        stream: 'stdout',
        message: 'expired',
        timestamp: new Date(now - 8 * 86_400_000).toISOString(),
      },
    ]);
    expect(expired.status).toBe(204);
    const kept = await ingest(server, retained, owner.accountId, [
      {
        stream: 'stdout',
        message: 'kept',
        timestamp: new Date(now - 6 * 86_400_000).toISOString(),
      },
    ]);
    expect(kept.status).toBe(204);
    expect((await read(retained)).map((e) => e.message)).toEqual(['expired', 'kept']);

    const purger = new LogStore(
      server.db.collection<LogChunkDoc>('log_chunks'),
      server.db.collection<LogHeadDoc>('log_heads'),
    );
    expect(await purger.purgeOlderThan(new Date(Date.now() - LOG_RETENTION_MS))).toBe(1);
    expect((await read(retained)).map((e) => e.message)).toEqual(['kept']);
  });
});
