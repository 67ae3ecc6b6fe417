/**
 * LogStore against the harness's FerretDB: appending in order, entries readable
 * as soon as stored, cursors on empty pages, bounded reads with filters,
 * retention from the oldest chunk, and concurrent writers that share no counter.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Collection, Db, MongoClient } from 'mongodb';
import { MAX_MESSAGE_BYTES } from '../../../apiserver/src/logs/log-lines.js';
import type { LogChunkDoc, LogHeadDoc } from '../../../apiserver/src/logs/log-chunks.js';
import { MAX_CHUNKS_PER_PAGE } from '../../../apiserver/src/logs/log-pages.js';
import {
  LOG_RETENTION_MS,
  LogStore,
  MAX_APPEND_BATCH,
  type NewLogEntry,
} from '../../../apiserver/src/logs/log-store.js';
import { mongoDatabase } from '../../harness/env.js';
import { waitFor } from '../../harness/wait.js';

let client: MongoClient;
let db: Db;
let chunks: Collection<LogChunkDoc>;
let heads: Collection<LogHeadDoc>;
const newStore = () => new LogStore(chunks, heads);

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
  chunks = db.collection<LogChunkDoc>('log_chunks');
  heads = db.collection<LogHeadDoc>('log_heads');
  await LogStore.ensureIndexes(chunks);
});

beforeEach(async () => {
  await chunks.deleteMany({});
  await heads.deleteMany({});
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

describe('LogStore.append', () => {
  it('stores lines in order under increasing ids, inferring levels and cutting long messages', async () => {
    const store = newStore();
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
    const docs = (await store.query({ ...tenant, limit: 10 })).items;
    expect(docs.map((d) => d.id)).toEqual(ids);
    expect(docs.map((d) => d.level)).toEqual(['INFO', 'WARN', 'ERROR', 'SYSTEM', 'DEBUG', 'INFO']);
    expect(docs[3]).toMatchObject({ deploymentId: 'dep-1', stream: 'system' });
    expect(docs[0]?.deploymentId).toBeNull();
    expect(docs[0]?.timestamp).toBeInstanceOf(Date);
    expect(Buffer.byteLength(docs[5]?.message ?? '')).toBe(MAX_MESSAGE_BYTES);
  });

  it(`splits more than ${MAX_APPEND_BATCH} lines into inserts and keeps their order`, async () => {
    const store = newStore();
    const entries = Array.from({ length: MAX_APPEND_BATCH + 5 }, (_, i) => line(`n${i}`));
    const ids = await store.append(entries);
    expect(ids).toHaveLength(MAX_APPEND_BATCH + 5);
    expect(increasing(ids)).toBe(true);
    const first = await store.query({ ...tenant, afterId: 0, limit: 1000 });
    const rest = await store.query({ ...tenant, afterId: first.nextAfterId, limit: 1000 });
    expect(first.hasMore).toBe(true);
    expect([...first.items, ...rest.items].map((d) => d.message)).toEqual(
      entries.map((e) => e.message),
    );
    expect(await chunks.countDocuments()).toBe(2);
  });

  it('cuts an append of long lines into chunks of at most 1 MiB of messages', async () => {
    const store = newStore();
    const entries = Array.from({ length: 200 }, (_, i) => line(`${i} `.padEnd(16_000, 'x')));
    const ids = await store.append(entries);
    expect(increasing(ids)).toBe(true);
    const stored = await chunks.find().toArray();
    expect(stored.length).toBeGreaterThanOrEqual(4);
    for (const chunk of stored) {
      expect(chunk.lines.reduce((n, l) => n + Buffer.byteLength(l.message), 0)).toBeLessThanOrEqual(
        1024 * 1024,
      );
    }
    const page = await store.query({ ...tenant, afterId: 0, limit: 1000 });
    expect(page.items.map((d) => d.message)).toEqual(entries.map((e) => e.message));
  });
});

describe('LogStore.query', () => {
  it('returns the documented cursors on empty pages', async () => {
    const store = newStore();
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
    const store = newStore();
    await store.append([
      line('mine'),
      line('other account', { accountId: 'acct-2' }),
      line('other environment', { environment: 'test' }),
      line('other agent', { agentId: 'agent-2' }),
    ]);
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => d.message)).toEqual(['mine']);
  });

  it('shows an entry as soon as its append returns, and a follower never skips one', async () => {
    // Two replicas write the same agent's log while a third follows it with afterId.
    const writers = [newStore(), newStore()];
    const reader = newStore();
    const written: string[] = [];
    let writing = true;
    const writes = Promise.all(
      writers.map(async (store, w) => {
        for (let b = 0; b < 15; b++) {
          const entries = Array.from({ length: 1 + ((b * 7) % 30) }, (_, i) =>
            line(`${w}-${b}-${i}`),
          );
          const ids = await store.append(entries);
          // Readable at once: a backward read from past it ends with this batch's last line.
          const latest = await reader.query({
            ...tenant,
            beforeId: (ids.at(-1) as number) + 1,
            limit: 1,
          });
          expect(latest.items.map((d) => d.id)).toEqual([ids.at(-1)]);
          written.push(...entries.map((e) => e.message));
        }
      }),
    ).finally(() => (writing = false));
    const followed: number[] = [];
    const messages: string[] = [];
    let afterId = 0;
    for (let last = false; !last;) {
      last = !writing;
      for (;;) {
        const page = await reader.query({ ...tenant, afterId, limit: 7 });
        followed.push(...page.items.map((d) => d.id));
        messages.push(...page.items.map((d) => d.message));
        afterId = page.nextAfterId;
        if (!page.hasMore) break;
      }
    }
    await writes;
    expect(increasing(followed)).toBe(true);
    expect(messages.sort()).toEqual(written.sort());
    expect(messages).toHaveLength(
      2 * [...Array(15).keys()].reduce((n, b) => n + 1 + ((b * 7) % 30), 0),
    );
  });

  it('hides nothing behind a slow append of the same process: a later one waits for it', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = false;
    let released = false;
    const release = () => {
      released = true;
      open();
    };
    let onHeld = () => {};
    // The calls on the collection the later append makes while the first insert is held.
    const later = new AsyncLocalStorage<true>();
    const laterWhileHeld: string[] = [];
    // The first insert stalls until released, as one slow request of several would.
    const slow = new Proxy(chunks, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]): unknown =>
          (value as (...a: unknown[]) => unknown).apply(target, args);
        return (...args: unknown[]) => {
          if (held && !released && later.getStore()) laterWhileHeld.push(String(property));
          if (property !== 'insertOne' || held) return call(...args);
          held = true;
          onHeld();
          return gate.then(() => call(...args));
        };
      },
    });
    const store = new LogStore(slow, heads);
    const early = store.append([line('early')]);
    await waitFor('the first append to reach its insert', () => held, {
      timeoutMs: 10_000,
      wakeOn: (changed) => {
        onHeld = changed;
        return () => (onHeld = () => {});
      },
    });
    // While it is held, a later append of the same process: one that did not wait for it would
    // go to the collection for its chunk number at once, before the query below is answered.
    const laterIds = later.run(true, () => store.append([line('later')]));
    expect((await store.query({ ...tenant, limit: 10 })).items).toEqual([]);
    expect(laterWhileHeld).toEqual([]);
    release();
    const [[earlyId], [laterId]] = await Promise.all([early, laterIds]);
    expect(laterId).toBeGreaterThan(earlyId as number);
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => [d.id, d.message])).toEqual([
      [earlyId, 'early'],
      [laterId, 'later'],
    ]);
  });

  it(`reads at most ${MAX_CHUNKS_PER_PAGE} chunks a page and moves the cursor past what a filter left out`, async () => {
    const store = newStore();
    for (let c = 0; c < MAX_CHUNKS_PER_PAGE + 6; c++) await store.append([line(`out ${c}`)]);
    const [wanted] = await store.append([line('wanted', { stream: 'stderr' })]);
    const q = { ...tenant, limit: 10, streams: ['stderr' as const] };
    const first = await store.query({ ...q, afterId: 0 });
    expect(first).toMatchObject({ items: [], hasMore: true });
    expect(first.nextAfterId).toBeGreaterThan(0);
    const second = await store.query({ ...q, afterId: first.nextAfterId });
    expect(second.items.map((d) => [d.id, d.message])).toEqual([[wanted, 'wanted']]);
    expect(second.hasMore).toBe(false);
    // Backward from the newest: the stderr line, then older pages until the start.
    const newest = await store.query({ ...tenant, limit: 1, streams: ['stdout'] });
    expect(newest.items.map((d) => d.message)).toEqual([`out ${MAX_CHUNKS_PER_PAGE + 5}`]);
    let before = await store.query({ ...q, beforeId: wanted as number });
    let pages = 1;
    while (before.hasMore) {
      expect(before.items).toEqual([]);
      before = await store.query({ ...q, beforeId: before.nextBeforeId as number });
      pages += 1;
    }
    expect(pages).toBe(2);
    expect(before.nextBeforeId).toBeNull();
  });

  it('applies stream, level and since filters to items and cursors', async () => {
    const store = newStore();
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
  it('deletes the oldest appends whose lines are all past the retention, and keeps the rest', async () => {
    const store = newStore();
    const now = Date.now();
    const days = (n: number) => new Date(now - n * 24 * 3_600_000);
    await store.append([
      line('nine days old', { timestamp: days(9) }),
      line('eight', { timestamp: days(8) }),
    ]);
    await store.append([line('six days old', { timestamp: days(6) })]);
    // Past the retention, but after one inside it: kept, so the chunks stay one range.
    await store.append([line('eight again', { timestamp: days(8) })]);
    await store.append([line('fresh')]);
    expect(await store.purgeOlderThan(new Date(now - LOG_RETENTION_MS))).toBe(2);
    const page = await store.query({ ...tenant, limit: 10 });
    expect(page.items.map((d) => d.message)).toEqual(['six days old', 'eight again', 'fresh']);
    expect(page.nextBeforeId).toBeNull();
    expect(await store.purgeOlderThan(new Date(now - LOG_RETENTION_MS))).toBe(0);
    // A follower whose cursor points into the purged chunks continues at the oldest kept.
    const followed = await newStore().query({ ...tenant, afterId: 0, limit: 10 });
    expect(followed.items.map((d) => d.message)).toEqual(['six days old', 'eight again', 'fresh']);
    // Another process appends after them.
    const [next] = await newStore().append([line('after the purge')]);
    expect(next).toBeGreaterThan(page.items.at(-1)!.id);

    // Everything expired: the agent's log is empty, and numbering goes on.
    expect(await store.purgeOlderThan(new Date(now + 1000))).toBe(4);
    expect((await newStore().query({ ...tenant, limit: 10 })).items).toEqual([]);
    const [again] = await newStore().append([line('new')]);
    expect(again).toBeGreaterThan(next as number);
    expect(
      (await newStore().query({ ...tenant, afterId: 0, limit: 10 })).items.map((d) => d.message),
    ).toEqual(['new']);
  });
});

describe('a start put back', () => {
  it('reads from the oldest chunk left and appends after the newest when first is below them', async () => {
    const store = newStore();
    const now = Date.now();
    await store.append([line('old', { timestamp: new Date(now - 9 * 24 * 3_600_000) })]);
    await store.append([line('old too', { timestamp: new Date(now - 9 * 24 * 3_600_000) })]);
    await store.append([line('kept')]);
    await store.append([line('kept too')]);
    expect(await store.purgeOlderThan(new Date(now - LOG_RETENTION_MS))).toBe(2);
    // As an update lost to another purge would leave it (FerretDB rewrites whole documents).
    await heads.updateMany({ first: { $exists: true } }, { $set: { first: 1 } });
    const fresh = newStore();
    const page = await fresh.query({ ...tenant, afterId: 0, limit: 10 });
    expect(page.items.map((d) => d.message)).toEqual(['kept', 'kept too']);
    const [next] = await newStore().append([line('after')]);
    expect(next).toBeGreaterThan(page.items.at(-1)!.id);
    const all = await newStore().query({ ...tenant, afterId: 0, limit: 10 });
    expect(all.items.map((d) => d.message)).toEqual(['kept', 'kept too', 'after']);
  });
});

describe('concurrent writers', () => {
  /** Every id names the line it was returned for, and no id is stored twice. */
  async function expectStoredAsReturned(expected: Map<number, string>) {
    const page = await newStore().query({ ...tenant, afterId: 0, limit: 1000 });
    expect(page.hasMore).toBe(false);
    expect(page.items).toHaveLength(expected.size);
    expect(new Map(page.items.map((d) => [d.id, d.message]))).toEqual(expected);
  }

  it('a writer that is behind takes the next free chunk after another took its number', async () => {
    const a = newStore();
    const b = newStore();
    const [first] = await b.append([line('b0')]);
    const fromA = await a.append([line('a0'), line('a1')]);
    const [late] = await b.append([line('b1')]);
    expect(b.retriedChunks).toBe(1);
    expect(late).toBeGreaterThan(fromA[1] as number);
    await expectStoredAsReturned(
      new Map([
        [first as number, 'b0'],
        [fromA[0] as number, 'a0'],
        [fromA[1] as number, 'a1'],
        [late as number, 'b1'],
      ]),
    );
  });

  it('two writers with overlapping appends each store every line once, each batch in order', async () => {
    const writers = [newStore(), newStore()];
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
