/**
 * The usage store and writer against real FerretDB: batches written by the
 * writer (requests coalesced per minute), reports sent twice stored once,
 * totals summed by the database per kind and agent, and an agent's events
 * paged newest first with filters.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db, MongoClient } from 'mongodb';
import { createLogger } from '../../../common/logger.js';
import { UsageStore } from '../../../apiserver/src/usage/usage-store.js';
import { UsageWriter } from '../../../apiserver/src/usage/usage-writer.js';
import { mongoDatabase } from '../../harness/env.js';

let mongo: MongoClient;
let db: Db;
let store: UsageStore;
const log = createLogger('usage', 'silent');

beforeAll(async () => {
  ({ client: mongo, db } = await mongoDatabase('usage-store'));
  store = UsageStore.open(db);
  await store.ensureIndexes();
});

afterAll(async () => {
  await db.dropDatabase().catch(() => undefined);
  await mongo.close();
});

const tenant = (accountId: string) => ({ accountId, environment: 'live' as const });

describe('UsageWriter with UsageStore', () => {
  it('coalesces requests of one minute into one event and flushes on close', async () => {
    const writer = new UsageWriter((docs) => store.insert(docs), log, { maxDelayMs: 60_000 });
    const who = { ...tenant('acct-coalesce'), agentId: 'agent-1' };
    for (let i = 0; i < 50; i++) writer.record({ ...who, kind: 'edge_request', bytes: 10 });
    expect(await store.events.countDocuments({ accountId: 'acct-coalesce' })).toBe(0);
    await writer.close();
    const docs = await store.events.find({ accountId: 'acct-coalesce' }).toArray();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ kind: 'edge_request', count: 50, bytes: 500 });
  });

  it('flushes a full batch at once, without waiting for its timer', async () => {
    const writer = new UsageWriter((docs) => store.insert(docs), log, {
      maxEvents: 3,
      maxDelayMs: 60_000,
    });
    for (let i = 0; i < 3; i++)
      writer.record({ ...tenant('acct-batch'), agentId: 'a', kind: 'run', _id: `run:b${i}` });
    await writer.flush();
    expect(await store.events.countDocuments({ accountId: 'acct-batch' })).toBe(3);
    await writer.close();
  });

  it('stores an event reported twice once', async () => {
    const event = { ...tenant('acct-dup'), agentId: 'a', kind: 'run' as const, seconds: 4 };
    const writer = new UsageWriter((docs) => store.insert(docs), log);
    writer.record({ ...event, _id: 'run:dup-1' });
    await writer.flush();
    writer.record({ ...event, _id: 'run:dup-1' });
    writer.record({ ...event, _id: 'run:dup-2' });
    await writer.close();
    expect(await store.events.countDocuments({ accountId: 'acct-dup' })).toBe(2);
  });
});

describe('UsageStore.totals', () => {
  it('sums per kind and agent in the database, within the period only', async () => {
    const writer = new UsageWriter((docs) => store.insert(docs), log);
    const t = tenant('acct-totals');
    const at = new Date('2026-03-10T12:00:00Z');
    writer.record({ ...t, agentId: 'a', kind: 'compute', seconds: 10, memoryMb: 256, at });
    writer.record({ ...t, agentId: 'a', kind: 'compute', seconds: 5, memoryMb: 512, at });
    writer.record({ ...t, agentId: 'b', kind: 'compute', seconds: 1, memoryMb: 128, at });
    writer.record({ ...t, agentId: null, kind: 'vector_storage', storageMb: 3, at });
    writer.record({ ...t, agentId: null, kind: 'vector_storage', storageMb: 7, at });
    writer.record({
      ...t,
      agentId: 'a',
      kind: 'compute',
      seconds: 99,
      memoryMb: 256,
      at: new Date('2026-04-01T00:00:00Z'),
    });
    await writer.close();
    const groups = await store.totals(
      'acct-totals',
      new Date('2026-03-01T00:00:00Z'),
      new Date('2026-04-01T00:00:00Z'),
    );
    const byKey = Object.fromEntries(groups.map((g) => [`${g.kind}/${g.agentId}`, g]));
    expect(Object.keys(byKey).sort()).toEqual(['compute/a', 'compute/b', 'vector_storage/null']);
    expect(byKey['compute/a']).toMatchObject({ events: 2, seconds: 15, mbSeconds: 5120 });
    expect(byKey['compute/b']).toMatchObject({ events: 1, seconds: 1, mbSeconds: 128 });
    expect(byKey['vector_storage/null']).toMatchObject({ events: 2, peakStorageMb: 7 });
  });
});

describe('UsageStore.page', () => {
  it('pages one agent newest first, filtered by kind and time', async () => {
    const writer = new UsageWriter((docs) => store.insert(docs), log);
    const t = tenant('acct-page');
    const base = Date.parse('2026-05-01T00:00:00Z');
    for (let i = 0; i < 7; i++) {
      writer.record({
        ...t,
        agentId: 'p',
        kind: i % 2 === 0 ? 'run' : 'build',
        _id: `e${i}`,
        at: new Date(base + i * 1000),
      });
    }
    writer.record({ ...t, agentId: 'other', kind: 'run', _id: 'e-other', at: new Date(base) });
    await writer.close();
    const ids: string[] = [];
    let after: { at: Date; id: string } | undefined;
    for (;;) {
      const page = await store.page({ ...t, agentId: 'p', limit: 3, after });
      ids.push(...page.events.map((e) => e._id));
      if (!page.next) break;
      after = page.next;
    }
    expect(ids).toEqual(['e6', 'e5', 'e4', 'e3', 'e2', 'e1', 'e0']);
    const runs = await store.page({
      ...t,
      agentId: 'p',
      kinds: ['run'],
      from: new Date(base + 1000),
      to: new Date(base + 6000),
      limit: 10,
    });
    expect(runs.events.map((e) => e._id)).toEqual(['e4', 'e2']);
    expect(runs.next).toBeNull();
  });
});
