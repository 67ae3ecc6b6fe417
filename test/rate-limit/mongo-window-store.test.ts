/**
 * The sliding-window counter store against the real MongoDB-wire server
 * (FerretDB) the harness starts.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Collection, Db, MongoClient } from 'mongodb';
import {
  MongoWindowStore,
  type RateBucket,
} from '../../apiserver/src/rate-limit/mongo-window-store.js';
import { mongoDatabase, uniqueSuffix } from '../harness/env.js';

const WINDOW = 60_000;
// A bucket boundary: 1_700_000_040_000 = 28_333_334 * 60_000.
const T0 = 1_700_000_040_000;

let client: MongoClient;
let db: Db;
let buckets: Collection<RateBucket>;
let store: MongoWindowStore;

/** A key of its own per test, so tests do not see each other's buckets. */
const newKey = () => `acct-${uniqueSuffix()}`;

/** The stored count of one bucket: the sum over its shards. */
async function bucketCount(key: string, start: number): Promise<number> {
  const shards = await buckets.find({ key, start }).toArray();
  return shards.reduce((sum, shard) => sum + shard.count, 0);
}

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('ratelimit'));
  buckets = db.collection<RateBucket>('rate_buckets');
  await MongoWindowStore.ensureIndexes(buckets);
  store = new MongoWindowStore(buckets);
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

describe('MongoWindowStore', () => {
  it('creates its indexes', async () => {
    const indexes = await buckets.indexes();
    const keys = indexes.map((index) => index.key);
    expect(keys).toContainEqual({ start: 1 });
    expect(keys).toContainEqual({ key: 1, start: 1 });
    // Idempotent.
    await MongoWindowStore.ensureIndexes(buckets);
  });

  it('counts hits within one bucket', async () => {
    const key = newKey();
    expect(await store.hit(key, T0 + 1_000)).toEqual({ previous: 0, current: 1 });
    expect(await store.hit(key, T0 + 2_000)).toEqual({ previous: 0, current: 2 });
    expect(await store.hit(key, T0 + 59_999)).toEqual({ previous: 0, current: 3 });
    expect(await buckets.find({ key }).toArray()).toEqual([
      { _id: `${key}:${T0}:${store.shard}`, key, start: T0, shard: store.shard, count: 3 },
    ]);
  });

  it('sees the previous bucket after the rollover', async () => {
    const key = newKey();
    await store.hit(key, T0 + 10_000);
    await store.hit(key, T0 + 20_000);
    expect(await store.hit(key, T0 + WINDOW + 5_000)).toEqual({ previous: 2, current: 1 });
    expect(await store.hit(key, T0 + WINDOW + 6_000)).toEqual({ previous: 2, current: 2 });
    // Two buckets on, the first one is no longer the previous one.
    expect(await store.hit(key, T0 + 2 * WINDOW)).toEqual({ previous: 2, current: 1 });
    expect(await store.hit(key, T0 + 3 * WINDOW)).toEqual({ previous: 1, current: 1 });
  });

  it('undoes a hit', async () => {
    const key = newKey();
    await store.hit(key, T0 + 1_000);
    await store.hit(key, T0 + 2_000);
    await store.undo(key, T0 + 2_000);
    expect(await store.hit(key, T0 + 3_000)).toEqual({ previous: 0, current: 2 });
    expect(await bucketCount(key, T0)).toBe(2);
    // Undo of a bucket that was never hit neither creates it nor goes negative.
    await store.undo(key, T0 + WINDOW);
    expect(await buckets.countDocuments({ key, start: T0 + WINDOW })).toBe(0);
  });

  it('counts 50 concurrent hits exactly', async () => {
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.hit(key, T0 + 1_000 + i)),
    );
    const currents = results.map((counts) => counts.current).sort((a, b) => a - b);
    expect(currents).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await bucketCount(key, T0)).toBe(50);
  });

  it('counts concurrent hits from several processes exactly and never under-counts', async () => {
    const key = newKey();
    // Three more stores on clients of their own stand in for three API server replicas.
    const others = await Promise.all([1, 2, 3].map(() => mongoDatabase('ratelimit')));
    try {
      const stores = others.map(
        ({ client: other }) =>
          new MongoWindowStore(other.db(db.databaseName).collection<RateBucket>('rate_buckets')),
      );
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => stores[i % stores.length]!.hit(key, T0 + i)),
      );
      expect(await bucketCount(key, T0)).toBe(60);
      // The i-th smallest count seen is at least i: whichever hits came last saw all the
      // earlier ones, so no more than `limit` of them can fit within `limit`.
      const currents = results.map((counts) => counts.current).sort((a, b) => a - b);
      currents.forEach((current, i) => expect(current).toBeGreaterThanOrEqual(i + 1));
      expect(currents.at(-1)).toBe(60);
      // A store started later (a restarted replica) sees the others' counts.
      expect(await store.hit(key, T0 + 1_000)).toEqual({ previous: 0, current: 61 });
    } finally {
      await Promise.all(others.map(({ client: other }) => other.close()));
    }
  });

  it('purges only buckets older than the previous one', async () => {
    const key = newKey();
    // Buckets at T0, T0+1w, T0+2w, T0+3w.
    for (let i = 0; i < 4; i++) await store.hit(key, T0 + i * WINDOW);
    const other = newKey();
    await store.hit(other, T0);
    // At T0+3w: current T0+3w, previous T0+2w; T0 and T0+1w (both keys) are old.
    const now = T0 + 3 * WINDOW + 30_000;
    const before = await buckets.countDocuments({ start: { $lt: T0 + 2 * WINDOW } });
    expect(before).toBeGreaterThanOrEqual(3);
    expect(await store.purgeOlderThan(now)).toBe(before);
    expect(await buckets.countDocuments({ start: { $lt: T0 + 2 * WINDOW } })).toBe(0);
    const left = await buckets.find({ key }).sort({ start: 1 }).toArray();
    expect(left.map((bucket) => bucket.start)).toEqual([T0 + 2 * WINDOW, T0 + 3 * WINDOW]);
    expect(await buckets.countDocuments({ key: other })).toBe(0);
    expect(await store.hit(key, now)).toEqual({ previous: 1, current: 2 });
    expect(await store.purgeOlderThan(now)).toBe(0);
  });

  it('keeps keys independent', async () => {
    const a = newKey();
    const b = newKey();
    await store.hit(a, T0 + 1_000);
    await store.hit(a, T0 + 2_000);
    await store.hit(b, T0 + WINDOW - 1);
    expect(await store.hit(a, T0 + 3_000)).toEqual({ previous: 0, current: 3 });
    expect(await store.hit(b, T0 + WINDOW + 1)).toEqual({ previous: 1, current: 1 });
    await store.undo(a, T0 + 4_000);
    expect(await store.hit(b, T0 + WINDOW + 2)).toEqual({ previous: 1, current: 2 });
    expect(await store.hit(a, T0 + 5_000)).toEqual({ previous: 0, current: 3 });
  });

  describe('hitCached', () => {
    /** A clock for the readings' age, moved by the test instead of waiting. */
    let now = 0;
    const clock = () => now;

    it('counts exactly within one instance, with one round trip for the bucket', async () => {
      const key = newKey();
      const counts = [];
      for (let i = 0; i < 5; i++)
        counts.push((await store.hitCached(key, T0 + i, WINDOW, 60_000)).current);
      expect(counts).toEqual([1, 2, 3, 4, 5]);
      // Only the first request of the bucket wrote; the later ones are in memory until a refresh.
      expect(await bucketCount(key, T0)).toBe(1);
      await store.undo(key, T0 + 5, WINDOW, { persist: false });
      expect((await store.hitCached(key, T0 + 6, WINDOW, 60_000)).current).toBe(5);
    });

    it("sees another instance's count once its own reading is stale, and publishes its own", async () => {
      const key = newKey();
      // This instance ages its readings by the test's clock.
      const cached = new MongoWindowStore(buckets, { clock });
      const other = new MongoWindowStore(buckets);
      for (let i = 0; i < 3; i++) await other.hit(key, T0 + i);
      // The first request of a bucket waits for the read: the other instance's 3 are in.
      expect(await cached.hitCached(key, T0 + 10, WINDOW, 50)).toEqual({ previous: 0, current: 4 });
      for (let i = 0; i < 2; i++) await other.hit(key, T0 + 20 + i);
      // Fresh reading: the other's 2 new hits are not seen yet...
      expect((await cached.hitCached(key, T0 + 30, WINDOW, 50)).current).toBe(5);
      now += 60;
      // ...stale now: this request waits for a fresh reading: 5 of the other's + 3 of ours.
      expect((await cached.hitCached(key, T0 + 40, WINDOW, 50)).current).toBe(8);
      // Fresh again: counted in memory, 5 + 4.
      expect((await cached.hitCached(key, T0 + 50, WINDOW, 50)).current).toBe(9);
      // The refresh published this instance's count for the others.
      expect(await bucketCount(key, T0)).toBeGreaterThanOrEqual(5 + 3);
    });

    it('answers from the last reading when a fresh one fails', async () => {
      const key = newKey();
      let broken = false;
      // The collection as the store sees it: its reads fail once `broken` is set.
      const flaky = new Proxy(buckets, {
        get(target, property) {
          if (property === 'find' && broken) throw new Error('the store is down');
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const other = new MongoWindowStore(buckets);
      await other.hit(key, T0);
      const flakyStore = new MongoWindowStore(flaky, { clock });
      expect((await flakyStore.hitCached(key, T0 + 1, WINDOW, 50)).current).toBe(2);
      broken = true;
      await other.hit(key, T0 + 2);
      now += 60;
      // The other's second hit is not seen: the read failed and the last one serves.
      expect((await flakyStore.hitCached(key, T0 + 3, WINDOW, 50)).current).toBe(3);
    });

    it('fails the first request of a bucket when the store is unreachable', async () => {
      const { MongoClient } = await import('mongodb');
      const down = new MongoClient('mongodb://127.0.0.1:1/', { serverSelectionTimeoutMS: 200 });
      const unreachable = new MongoWindowStore(down.db('x').collection<RateBucket>('rate_buckets'));
      await expect(unreachable.hitCached(newKey(), T0)).rejects.toThrow();
      await down.close();
    });
  });
});
