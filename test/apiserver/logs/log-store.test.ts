/**
 * LogStore against the harness's FerretDB: appending in order, the read
 * horizon, cursors on empty pages, retention, and concurrent writers that share
 * no counter.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Collection, Db, MongoClient } from 'mongodb';
import { MAX_MESSAGE_BYTES } from '../../../apiserver/src/logs/log-lines.js';
import {
  LOG_RETENTION_MS,
  LogStore,
  MAX_APPEND_BATCH,
  type LogDoc,
  type NewLogEntry,
} from '../../../apiserver/src/logs/log-store.js';
import { mongoDatabase } from '../../harness/env.js';

let client: MongoClient;
let db: Db;
let logs: Collection<LogDoc>;

const tenant = { accountId: 'acct-1', environment: 'live', agentId: 'agent-1' } as const;
const line = (message: string, extra: Partial<NewLogEntry> = {}): NewLogEntry => ({
  ...tenant,
  stream: 'stdout',
  message,
  ...extra,
});
const increasing = (ids: number[]) => ids.every((id, i) => i === 0 || id > (ids[i - 1] as number));

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('logs'));
  logs = db.collection<LogDoc>('logs');
  await LogStore.ensureIndexes(logs);
});

beforeEach(async () => {
  await logs.deleteMany({});
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

describe('LogStore.append', () => {
  it('stores lines in order under increasing ids, inferring levels and cutting long messages', async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    const ids = await store.append([
      line('hello'),
      line('WARNING:root:careful', { stream: 'stderr' }),
      line('boom', { stream: 'stderr' }),
      line('deployed', { stream: 'system', deploymentId: 'dep-1' }),
      line('chosen', { level: 'DEBUG' }),
      line('y'.repeat(MAX_MESSAGE_BYTES * 2)),
    ]);
    expect(ids).toHaveLength(6);
    expect(increasing(ids)).toBe(true);
    const docs = await logs.find().sort({ _id: 1 }).toArray();
    expect(docs.map((d) => d._id)).toEqual(ids);
    expect(docs.map((d) => d.level)).toEqual(['INFO', 'WARN', 'ERROR', 'SYSTEM', 'DEBUG', 'INFO']);
    expect(docs[3]).toMatchObject({ ...tenant, deploymentId: 'dep-1', stream: 'system' });
    expect(docs[0]?.deploymentId).toBeNull();
    expect(docs[0]?.timestamp).toBeInstanceOf(Date);
    expect(Buffer.byteLength(docs[5]?.message ?? '')).toBe(MAX_MESSAGE_BYTES);
  });

  it(`splits more than ${MAX_APPEND_BATCH} lines into inserts and keeps their order`, async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    const entries = Array.from({ length: MAX_APPEND_BATCH + 5 }, (_, i) => line(`n${i}`));
    const ids = await store.append(entries);
    expect(ids).toHaveLength(MAX_APPEND_BATCH + 5);
    expect(increasing(ids)).toBe(true);
    const docs = await logs.find().sort({ _id: 1 }).toArray();
    expect(docs.map((d) => d.message)).toEqual(entries.map((e) => e.message));
  });
});

describe('LogStore.query', () => {
  it('returns the documented cursors on empty pages', async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    const q = { ...tenant, limit: 10 };
    expect(await store.query(q)).toEqual({
      items: [],
      nextAfterId: 0,
      nextBeforeId: null,
      hasMore: false,
    });
    expect(await store.query({ ...q, afterId: 5 })).toMatchObject({
      nextAfterId: 5,
      nextBeforeId: null,
    });
    const [id] = await store.append([line('only')]);
    expect(await store.query({ ...q, afterId: id })).toEqual({
      items: [],
      nextAfterId: id,
      nextBeforeId: (id as number) + 1,
      hasMore: false,
    });
    expect(await store.query({ ...q, beforeId: id })).toEqual({
      items: [],
      nextAfterId: 0,
      nextBeforeId: null,
      hasMore: false,
    });
  });

  it('keeps tenants and agents apart', async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    await store.append([
      line('mine'),
      line('other account', { accountId: 'acct-2' }),
      line('other environment', { environment: 'test' }),
      line('other agent', { agentId: 'agent-2' }),
    ]);
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => d.message)).toEqual(['mine']);
  });

  it('shows an entry only once its id is settleMs old, so a follower never skips a late insert', async () => {
    let clock = 1_000_000;
    const writer = new LogStore(logs, { now: () => clock, settleMs: 1000 });
    const reader = new LogStore(logs, { now: () => clock, settleMs: 1000 });
    const [first] = await writer.append([line('first')]);
    expect((await reader.query({ ...tenant, limit: 10 })).items).toEqual([]);
    clock += 999;
    expect((await reader.query({ ...tenant, limit: 10 })).items).toEqual([]);
    clock += 1;
    const page = await reader.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => d._id)).toEqual([first]);

    // Another writer drew an id 500 ms after `first` but stored it only now,
    // after the reader took its cursor: the cursor has not moved past it.
    const late = new LogStore(logs, { now: () => clock - 500, settleMs: 1000 });
    const [lateId] = await late.append([line('late')]);
    clock += 600;
    const next = await reader.query({ ...tenant, limit: 10, afterId: page.nextAfterId });
    expect(next.items.map((d) => [d._id, d.message])).toEqual([[lateId, 'late']]);
  });

  it('hides what one of its inserts still writes: a later, faster insert waits behind it', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    // The first insert stalls until released, as one slow request of several would.
    const slow = new Proxy(logs, {
      get(target, property) {
        if (property === 'insertMany') {
          return async (...args: Parameters<Collection<LogDoc>['insertMany']>) => {
            if (!held) {
              held = true;
              await gate;
            }
            return target.insertMany(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const store = new LogStore(slow, { settleMs: 0 });
    const early = store.append([line('early')]);
    const [later] = await store.append([line('later')]);
    expect((await store.query({ ...tenant, limit: 10 })).items).toEqual([]);
    release();
    const [earlyId] = await early;
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => [d._id, d.message])).toEqual([
      [earlyId, 'early'],
      [later, 'later'],
    ]);
  });

  it('applies stream, level and since filters to items and cursors', async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    const old = new Date(Date.now() - 3_600_000);
    const ids = await store.append([
      line('a', { stream: 'stderr', timestamp: old }),
      line('b'),
      line('c', { stream: 'stderr' }),
      line('d'),
    ]);
    const errors = await store.query({ ...tenant, limit: 1, streams: ['stderr'] });
    expect(errors).toEqual({
      items: [expect.objectContaining({ message: 'c' })],
      nextAfterId: ids[2],
      nextBeforeId: ids[2],
      hasMore: true,
    });
    const older = await store.query({
      ...tenant,
      limit: 1,
      streams: ['stderr'],
      beforeId: errors.nextBeforeId as number,
    });
    expect(older).toMatchObject({ nextBeforeId: null, hasMore: false });
    expect(older.items.map((d) => d.message)).toEqual(['a']);
    const recent = await store.query({
      ...tenant,
      limit: 10,
      levels: ['ERROR'],
      since: new Date(Date.now() - 60_000),
    });
    expect(recent.items.map((d) => d.message)).toEqual(['c']);
    const fromStart = await store.query({ ...tenant, limit: 10, afterId: 0, levels: ['INFO'] });
    expect(fromStart).toMatchObject({ nextBeforeId: null, nextAfterId: ids[3], hasMore: false });
    expect(fromStart.items.map((d) => d.message)).toEqual(['b', 'd']);
  });
});

describe('LogStore.purgeOlderThan', () => {
  it('deletes entries older than the retention by timestamp and keeps the rest', async () => {
    const store = new LogStore(logs, { settleMs: 0 });
    const now = Date.now();
    await store.append([
      line('eight days old', { timestamp: new Date(now - 8 * 24 * 3_600_000) }),
      line('six days old', { timestamp: new Date(now - 6 * 24 * 3_600_000) }),
      line('fresh'),
    ]);
    expect(await store.purgeOlderThan(new Date(now - LOG_RETENTION_MS))).toBe(1);
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => d.message)).toEqual(['six days old', 'fresh']);
    expect(await store.purgeOlderThan(new Date(now - LOG_RETENTION_MS))).toBe(0);
  });
});

describe('concurrent writers', () => {
  /** One writer's sequential appends of `batches` x `size` lines; returns the ids in order. */
  async function writeSequentially(store: LogStore, name: string, batches: number, size: number) {
    const ids: number[] = [];
    for (let b = 0; b < batches; b++) {
      const entries = Array.from({ length: size }, (_, i) => line(`${name}-${b}-${i}`));
      ids.push(...(await store.append(entries)));
    }
    return ids;
  }

  /** Every id names the line it was returned for, and no id is stored twice. */
  async function expectStoredAsReturned(expected: Map<number, string>) {
    const docs = await logs.find().toArray();
    expect(docs).toHaveLength(expected.size);
    expect(new Map(docs.map((d) => [d._id, d.message]))).toEqual(expected);
  }

  it('two writers whose clocks read the same millisecond never collide: losers retry under fresh ids', async () => {
    // Both allocators start at the same id and follow the same sequence, so
    // every insert races the other writer's for its ids.
    const frozen = () => 1_700_000_000_000;
    const a = new LogStore(logs, { now: frozen, settleMs: 0 });
    const b = new LogStore(logs, { now: frozen, settleMs: 0 });
    const [idsA, idsB] = await Promise.all([
      writeSequentially(a, 'a', 10, 25),
      writeSequentially(b, 'b', 10, 25),
    ]);
    expect(a.retriedEntries + b.retriedEntries).toBeGreaterThan(0);
    expect(increasing(idsA)).toBe(true);
    expect(increasing(idsB)).toBe(true);
    expect(new Set([...idsA, ...idsB]).size).toBe(500);
    const expected = new Map<number, string>();
    idsA.forEach((id, k) => expected.set(id, `a-${Math.floor(k / 25)}-${k % 25}`));
    idsB.forEach((id, k) => expected.set(id, `b-${Math.floor(k / 25)}-${k % 25}`));
    await expectStoredAsReturned(expected);
  });

  it('two writers on real clocks with overlapping appends each store every line once, each batch in order', async () => {
    const writers = [new LogStore(logs, { settleMs: 0 }), new LogStore(logs, { settleMs: 0 })];
    const expected = new Map<number, string>();
    await Promise.all(
      writers.flatMap((store, w) =>
        Array.from({ length: 8 }, async (_, b) => {
          const entries = Array.from({ length: 40 }, (_, i) => line(`${w}-${b}-${i}`));
          const ids = await store.append(entries);
          expect(increasing(ids)).toBe(true);
          ids.forEach((id, i) => expected.set(id, entries[i]?.message as string));
        }),
      ),
    );
    expect(expected.size).toBe(2 * 8 * 40);
    await expectStoredAsReturned(expected);
  });
});
