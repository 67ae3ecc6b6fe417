/**
 * MongoDB storage of the sliding-window counters, shared by every API server
 * replica.
 *
 * Written for the least capable server we run against, FerretDB v1 (SQLite
 * backend). Besides lacking transactions, change streams and TTL indexes, it
 * does not apply updates atomically: every update, `$inc` included, is a read
 * of the document, a modification in FerretDB's memory and a write-back of the
 * whole document by `_id`, with nothing serialising concurrent updaters. Fifty
 * concurrent `$inc`s of one counter there end at well under fifty; and since
 * the filter is evaluated before that write-back, compare-and-set filters do not
 * help either.
 *
 * So no document here ever has more than one writer. Each store instance (one
 * per process) owns a shard document per (key, bucket), keeps that shard's
 * count in memory, and writes it back as an absolute value through a per-shard
 * queue. A bucket's count is the sum of its shards, read in one query. Storage
 * stays O(1) per account with respect to traffic: per bucket, one small
 * document per replica that served the account, and only the current and the
 * previous bucket are ever read.
 *
 * Under concurrency this never under-counts. Order the shard writes as the
 * server applies them: a request whose count first reached the server in the
 * k-th place reads at least k afterwards, so no more than `limit` requests fit
 * within `limit`, as with an atomic `$inc`. Within one store instance, the
 * counts returned are distinct. Across instances, two requests may both see the
 * larger count, which can only err toward rejecting.
 */
import { randomBytes } from 'node:crypto';
import { MongoServerError, type Collection } from 'mongodb';
import { bucketStart, DEFAULT_WINDOW_MS, type WindowCounts } from './sliding-window.js';

/**
 * One store instance's share of one fixed-window bucket of one rate-limit key.
 * `_id` is `${key}:${start}:${shard}`; only the instance that owns `shard`
 * writes the document. A bucket's count is the sum of `count` over its shards.
 */
export interface RateBucket {
  _id: string;
  /** The rate-limited subject, e.g. an account id. */
  key: string;
  /** Bucket start, epoch milliseconds, a multiple of the window length. */
  start: number;
  /** The writing store instance (random per instance, so a restart never reuses one). */
  shard: string;
  /** Requests this shard counted in this bucket. */
  count: number;
}

/** MongoDB's duplicate-key error code. */
const DUPLICATE_KEY = 11000;

/** In-memory state of the shard document this instance owns for one (key, bucket). */
interface Slot {
  key: string;
  start: number;
  /** The authoritative count of this shard. */
  count: number;
  /** The last write queued, in progress or finished. */
  last: Promise<void>;
  /** A queued write that has not started yet. It will carry every change made so far. */
  queued: Promise<void> | null;
  /** {@link MongoWindowStore.hitCached}: the other shards' counts as last read, and when. */
  others: { current: number; previous: number; readAt: number } | null;
  /** A read of the other shards in progress. */
  refreshing: Promise<void> | null;
}

/**
 * How stale other replicas' counts of an account's bucket may be when counted with
 * {@link MongoWindowStore.hitCached}, as both planes do. Within one replica the limit is
 * exact; across N replicas each may admit what the others admitted in the last 250 ms on
 * top of the limit.
 */
export const LIMIT_STALENESS_MS = 250;

/** Options of {@link MongoWindowStore}. */
export interface MongoWindowStoreOptions {
  /**
   * The clock, in milliseconds, that ages the other shards' counts read by
   * {@link MongoWindowStore.hitCached} (default: the monotonic wall clock); a test that moves the
   * requests' clock passes the same one, so it decides when a reading is stale instead of waiting
   * LIMIT_STALENESS_MS of real time.
   */
  clock?: () => number;
}

/**
 * Sliding-window counters in a MongoDB collection: `hit` counts a request and
 * returns the two bucket counts for `evaluateWindow`; `undo` takes a rejected
 * request back out. Use one instance per process; instances in any number of
 * processes may share the collection.
 */
export class MongoWindowStore {
  /** This instance's shard id: random, so no two instances ever write the same document. */
  readonly shard = randomBytes(8).toString('hex');
  private readonly slots = new Map<string, Slot>();
  private readonly clock: () => number;

  constructor(
    private readonly collection: Collection<RateBucket>,
    options: MongoWindowStoreOptions = {},
  ) {
    this.clock = options.clock ?? (() => performance.now());
  }

  /**
   * Creates the indexes: `{ key: 1, start: 1 }` for reading a key's buckets
   * and `{ start: 1 }` for `purgeOlderThan`. Idempotent; call once at startup.
   */
  static async ensureIndexes(collection: Collection<RateBucket>): Promise<void> {
    await collection.createIndex({ key: 1, start: 1 }, { name: 'key_1_start_1' });
    await collection.createIndex({ start: 1 }, { name: 'start_1' });
  }

  /**
   * Counts one request for `key` at `nowMs` and returns the counts of the
   * current bucket (including this request) and of the previous one. The
   * request stays counted even if this throws: counting it is the safe side.
   */
  async hit(key: string, nowMs: number, windowMs = DEFAULT_WINDOW_MS): Promise<WindowCounts> {
    const start = bucketStart(nowMs, windowMs);
    const slot = this.slot(key, start);
    const rank = ++slot.count;
    await this.persist(slot);

    // Our shard's count is known here; every other shard's comes from the server.
    const docs = await this.collection
      .find({ key, start: { $in: [start - windowMs, start] } })
      .toArray();
    let previous = 0;
    let current = rank;
    for (const doc of docs) {
      if (doc.start !== start) previous += doc.count;
      else if (doc.shard !== this.shard) current += doc.count;
    }
    return { previous, current };
  }

  /**
   * Like {@link hit}, without a round trip per request: counts in memory and
   * uses the other instances' shards as read at most `staleMs` ago (a request
   * that finds them older waits for a fresh read, which the requests arriving
   * meanwhile share). Within one process the count is exact. Across N
   * processes it can admit up to about (N - 1) x (requests per `staleMs`)
   * more than an atomic counter would: the price of a limit checked on every
   * request without writing to the database on every request. When the read
   * fails, the last counts read serve; with none, it throws.
   */
  async hitCached(
    key: string,
    nowMs: number,
    windowMs = DEFAULT_WINDOW_MS,
    staleMs = LIMIT_STALENESS_MS,
  ): Promise<WindowCounts> {
    const start = bucketStart(nowMs, windowMs);
    const slot = this.slot(key, start);
    const rank = ++slot.count;
    // A reading from the clock's future (a test's clock moved back) counts as stale too.
    const age = slot.others ? this.clock() - slot.others.readAt : Infinity;
    if (age < 0 || age >= staleMs) {
      try {
        await (slot.refreshing ?? this.refresh(slot, windowMs));
      } catch (err) {
        if (!slot.others) throw err;
      }
    }
    const others = slot.others!;
    return { previous: others.previous, current: rank + others.current };
  }

  /** Writes this shard's count and reads the other shards' counts of the slot's buckets. */
  private refresh(slot: Slot, windowMs: number): Promise<void> {
    const run = async () => {
      await this.persist(slot);
      const docs = await this.collection
        .find({ key: slot.key, start: { $in: [slot.start - windowMs, slot.start] } })
        .toArray();
      let previous = 0;
      let current = 0;
      for (const doc of docs) {
        if (doc.start !== slot.start) previous += doc.count;
        else if (doc.shard !== this.shard) current += doc.count;
      }
      slot.others = { current, previous, readAt: this.clock() };
    };
    const refreshing = run().finally(() => {
      slot.refreshing = null;
    });
    slot.refreshing = refreshing;
    return refreshing;
  }

  /**
   * Takes one request back from the current bucket of `key` (a rejected
   * request must not use up quota). Call it on the store that counted the
   * request, with the same `nowMs` as that `hit`, so it lands in the same
   * bucket and shard; otherwise it does nothing.
   */
  async undo(
    key: string,
    nowMs: number,
    windowMs = DEFAULT_WINDOW_MS,
    { persist = true } = {},
  ): Promise<void> {
    const slot = this.slots.get(slotKey(key, bucketStart(nowMs, windowMs)));
    if (!slot || slot.count === 0) return;
    slot.count--;
    // With hitCached the next refresh writes it; a refused flood then costs no writes.
    if (persist) await this.persist(slot);
  }

  /**
   * Deletes every bucket, of every shard, that can no longer be the current or
   * previous one at `nowMs` (`start < bucketStart(now) - windowMs`), and forgets
   * this instance's in-memory state of them; returns how many documents were
   * deleted. Stands in for a TTL index, which FerretDB v1 lacks; any replica may
   * call it periodically.
   */
  async purgeOlderThan(nowMs: number, windowMs = DEFAULT_WINDOW_MS): Promise<number> {
    const oldest = bucketStart(nowMs, windowMs) - windowMs;
    for (const [id, slot] of this.slots) {
      if (slot.start < oldest && slot.queued === null && slot.refreshing === null) {
        this.slots.delete(id);
      }
    }
    const result = await this.collection.deleteMany({ start: { $lt: oldest } });
    return result.deletedCount;
  }

  private slot(key: string, start: number): Slot {
    const id = slotKey(key, start);
    let slot = this.slots.get(id);
    if (!slot) {
      slot = {
        key,
        start,
        count: 0,
        last: Promise.resolve(),
        queued: null,
        others: null,
        refreshing: null,
      };
      this.slots.set(id, slot);
    }
    return slot;
  }

  /**
   * Resolves once the server holds a value of the shard that includes every
   * change made to `slot.count` before the call. Writes of one shard run one
   * at a time, so an older value never overwrites a newer one. Callers arriving
   * while a write waits to start share that write.
   */
  private persist(slot: Slot): Promise<void> {
    if (slot.queued) return slot.queued;
    const write = slot.last
      .catch(() => undefined)
      .then(() => {
        slot.queued = null;
        return this.write(slot, slot.count);
      });
    slot.queued = write;
    slot.last = write;
    return write;
  }

  /** Upserts this instance's shard document with the absolute `count`. */
  private async write(slot: Slot, count: number): Promise<void> {
    const { key, start } = slot;
    const doc: RateBucket = {
      _id: `${key}:${start}:${this.shard}`,
      key,
      start,
      shard: this.shard,
      count,
    };
    const replace = () => this.collection.replaceOne({ _id: doc._id }, doc, { upsert: true });
    try {
      await replace();
    } catch (error) {
      // With a single writer per document, a racing insert of the same `_id`
      // should not happen; if the server still reports one, the document now
      // exists and the retry is a plain replace.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      await replace();
    }
  }
}

function slotKey(key: string, start: number): string {
  return `${key}:${start}`;
}
