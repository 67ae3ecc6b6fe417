/** GET /api/v1/agents/{agent}/logs: authentication, validation, isolation, keyset paging, filters. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  createCaller,
  startControlPlaneServer,
  type Caller,
  type TestServer,
} from '../control-plane-server.js';
import { ingest } from './log-helpers.js';

type Entry = { id: number; timestamp: string; stream: string; level: string; message: string };
type Page = {
  items: Entry[];
  next_after_id: number;
  next_before_id: number | null;
  has_more: boolean;
};
type Detail = {
  detail: { code: string; violations?: Array<{ loc: unknown[]; type: string }> };
};

let server: TestServer;
let owner: Caller;
let stranger: Caller;
let pagedId: string;
let filteredId: string;
/** The ids of lines 1-7 of the paged agent, in the order they were sent. */
let ids: number[];

const createAgent = async (caller: Caller, name: string) =>
  (
    await call<{ id: string }>(server, 'POST', '/api/v1/agents', {
      key: caller.key,
      body: { name },
    })
  ).body.id;
const logs = (ref: string, query = '', key = owner.key) =>
  call<Page & Detail>(server, 'GET', `/api/v1/agents/${ref}/logs${query ? `?${query}` : ''}`, {
    key,
  });
const messages = (page: Page) => page.items.map((e) => e.message);

beforeAll(async () => {
  server = await startControlPlaneServer();
  owner = await createCaller(server);
  stranger = await createCaller(server);
  pagedId = await createAgent(owner, 'paged');
  filteredId = await createAgent(owner, 'filtered');
  // The stranger's agent of the same name must show none of the owner's lines.
  await createAgent(stranger, 'paged');

  const lines = Array.from({ length: 7 }, (_, i) => ({
    stream: 'stdout' as const,
    message: `line ${i + 1}`,
  }));
  expect((await ingest(server, pagedId, owner.accountId, lines)).status).toBe(204);
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const mixed = [
    { stream: 'stdout', message: 'hello', timestamp: hourAgo },
    { stream: 'stderr', message: 'WARNING:root:careful' },
    { stream: 'stderr', message: 'Traceback (most recent call last):' },
    { stream: 'system', message: 'Deployment 1 is active' },
    { stream: 'stdout', message: 'DEBUG cache miss' },
    { stream: 'stdout', message: 'declared', level: 'WARN' },
  ] as const;
  expect((await ingest(server, filteredId, owner.accountId, [...mixed])).status).toBe(204);

  const all = await logs(pagedId, 'limit=1000');
  ids = all.body.items.map((e) => e.id);
});

afterAll(async () => {
  await server.close();
});

describe('GET /api/v1/agents/{agent}/logs', () => {
  it('returns 401 MISSING_API_KEY without a key', async () => {
    const res = await call<Detail>(server, 'GET', `/api/v1/agents/${pagedId}/logs`);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe('MISSING_API_KEY');
  });

  it('returns 422 VALIDATION_ERROR for bad cursors, limits, streams, levels and dates', async () => {
    for (const query of [
      'after_id=1&before_id=2',
      'limit=0',
      'limit=1001',
      'limit=ten',
      'after_id=-1',
      'before_id=1.5',
      'after_id=99999999999999999999',
      'stream=stdin',
      'stream=stdout,',
      'level=info',
      'level=INFO,FATAL',
      'since=yesterday',
      // Spelled like date-times, yet none: they were read as no filter at all.
      'since=',
      'since=2026-13-01T00:00:00Z',
      'since=2026-01-01T25:00:00Z',
    ]) {
      const res = await logs(pagedId, query);
      expect([query, res.status]).toEqual([query, 422]);
      expect(res.body.detail.code).toBe('VALIDATION_ERROR');
    }
  });

  it('names before_id when both cursors are sent', async () => {
    const res = await logs(pagedId, 'after_id=1&before_id=2');
    expect(res.body.detail.violations).toEqual([
      expect.objectContaining({ loc: ['query', 'before_id'], type: 'exclusive_cursors' }),
    ]);
  });

  it("returns 404 AGENT_NOT_FOUND for another account's agent, by UUID and by name", async () => {
    for (const ref of [pagedId, 'filtered']) {
      const res = await logs(ref, '', stranger.key);
      expect([ref, res.status]).toEqual([ref, 404]);
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it('returns 404 AGENT_NOT_FOUND for an unknown UUID and an unknown name', async () => {
    for (const ref of ['00000000-0000-4000-8000-000000000000', 'no-such-agent']) {
      const res = await logs(ref);
      expect([ref, res.status]).toEqual([ref, 404]);
      expect(res.body.detail.code).toBe('AGENT_NOT_FOUND');
    }
  });

  it("shows an agent of the same name in another account none of this account's lines", async () => {
    const res = await logs('paged', '', stranger.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [],
      next_after_id: 0,
      next_before_id: null,
      has_more: false,
    });
  });

  it('returns LogEntry records with exactly id, timestamp, stream, level and message, by UUID or name', async () => {
    expect(ids).toHaveLength(7);
    expect(ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(
      true,
    );
    const byName = await logs('paged', 'limit=1');
    expect(byName.status).toBe(200);
    const [entry] = byName.body.items;
    expect(Object.keys(entry ?? {}).sort()).toEqual([
      'id',
      'level',
      'message',
      'stream',
      'timestamp',
    ]);
    expect(entry).toMatchObject({ id: ids[6], stream: 'stdout', level: 'INFO', message: 'line 7' });
    expect(new Date(entry?.timestamp ?? '').toISOString()).toBe(entry?.timestamp);
  });

  it('pages backward from the newest entries, each page oldest first, until next_before_id is null', async () => {
    const newest = await logs(pagedId, 'limit=3');
    expect(newest.body).toEqual({
      items: [5, 6, 7].map((n) =>
        expect.objectContaining({ id: ids[n - 1], message: `line ${n}` }),
      ),
      next_after_id: ids[6],
      next_before_id: ids[4],
      has_more: true,
    });
    const middle = await logs(pagedId, `limit=3&before_id=${newest.body.next_before_id}`);
    expect(messages(middle.body)).toEqual(['line 2', 'line 3', 'line 4']);
    expect(middle.body).toMatchObject({
      next_after_id: ids[3],
      next_before_id: ids[1],
      has_more: true,
    });
    const oldest = await logs(pagedId, `limit=3&before_id=${middle.body.next_before_id}`);
    expect(oldest.body).toEqual({
      items: [expect.objectContaining({ id: ids[0], message: 'line 1' })],
      next_after_id: ids[0],
      next_before_id: null,
      has_more: false,
    });
  });

  it('pages forward with after_id, and an empty page keeps the cursor for polling', async () => {
    const first = await logs(pagedId, 'limit=3&after_id=0');
    expect(first.body.items.map((e) => e.id)).toEqual(ids.slice(0, 3));
    expect(first.body).toMatchObject({
      next_after_id: ids[2],
      next_before_id: null,
      has_more: true,
    });
    const second = await logs(pagedId, `limit=3&after_id=${first.body.next_after_id}`);
    expect(second.body.items.map((e) => e.id)).toEqual(ids.slice(3, 6));
    expect(second.body).toMatchObject({
      next_after_id: ids[5],
      next_before_id: ids[3],
      has_more: true,
    });
    const last = await logs(pagedId, `limit=3&after_id=${second.body.next_after_id}`);
    expect(last.body).toEqual({
      items: [expect.objectContaining({ id: ids[6], message: 'line 7' })],
      next_after_id: ids[6],
      next_before_id: ids[6],
      has_more: false,
    });
    const caughtUp = await logs(pagedId, `limit=3&after_id=${last.body.next_after_id}`);
    expect(caughtUp.body).toEqual({
      items: [],
      next_after_id: ids[6],
      next_before_id: ids[6]! + 1,
      has_more: false,
    });
  });

  it('defaults to the newest 100 entries', async () => {
    const res = await logs(pagedId);
    expect(messages(res.body)).toEqual(Array.from({ length: 7 }, (_, i) => `line ${i + 1}`));
    expect(res.body.has_more).toBe(false);
  });

  it('infers levels: level words win, stderr is ERROR, stdout INFO, system SYSTEM', async () => {
    const res = await logs(filteredId);
    expect(res.body.items.map((e) => [e.stream, e.level, e.message])).toEqual([
      ['stdout', 'INFO', 'hello'],
      ['stderr', 'WARN', 'WARNING:root:careful'],
      ['stderr', 'ERROR', 'Traceback (most recent call last):'],
      ['system', 'SYSTEM', 'Deployment 1 is active'],
      ['stdout', 'DEBUG', 'DEBUG cache miss'],
      ['stdout', 'WARN', 'declared'],
    ]);
  });

  it('filters by stream and by level, as comma lists or repeated parameters', async () => {
    expect(messages((await logs(filteredId, 'stream=stderr')).body)).toEqual([
      'WARNING:root:careful',
      'Traceback (most recent call last):',
    ]);
    expect(
      messages((await logs(filteredId, 'stream=system,stdout&level=INFO,SYSTEM')).body),
    ).toEqual(['hello', 'Deployment 1 is active']);
    expect(messages((await logs(filteredId, 'level=WARN&level=DEBUG')).body)).toEqual([
      'WARNING:root:careful',
      'DEBUG cache miss',
      'declared',
    ]);
  });

  it('filters by since on the entry timestamp', async () => {
    const since = new Date(Date.now() - 600_000).toISOString();
    const res = await logs(filteredId, `stream=stdout&since=${encodeURIComponent(since)}`);
    expect(messages(res.body)).toEqual(['DEBUG cache miss', 'declared']);
  });

  it('pages through a filtered view with cursors of that view', async () => {
    const newest = await logs(filteredId, 'level=WARN,ERROR&limit=2');
    expect(messages(newest.body)).toEqual(['Traceback (most recent call last):', 'declared']);
    expect(newest.body.has_more).toBe(true);
    const older = await logs(
      filteredId,
      `level=WARN,ERROR&limit=2&before_id=${newest.body.next_before_id}`,
    );
    expect(messages(older.body)).toEqual(['WARNING:root:careful']);
    expect(older.body).toMatchObject({ next_before_id: null, has_more: false });
  });

  it('documents the route, its parameters and the LogEntry record', async () => {
    type Doc = {
      paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }> }>>;
      components: { schemas: Record<string, { properties: object; required: string[] }> };
    };
    const doc = (await call<Doc>(server, 'GET', '/openapi.json')).body;
    const op = doc.paths['/api/v1/agents/{agent}/logs']?.get;
    expect(op?.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'path:agent',
      'query:after_id',
      'query:before_id',
      'query:level',
      'query:limit',
      'query:since',
      'query:stream',
    ]);
    const entry = doc.components.schemas.LogEntry;
    expect(Object.keys(entry?.properties ?? {})).toEqual([
      'id',
      'timestamp',
      'stream',
      'level',
      'message',
    ]);
    expect(entry?.required).toEqual(['id', 'timestamp', 'stream', 'level', 'message']);
    expect(doc.components.schemas.LogPage?.required).toEqual([
      'items',
      'next_after_id',
      'next_before_id',
      'has_more',
    ]);
  });
});
