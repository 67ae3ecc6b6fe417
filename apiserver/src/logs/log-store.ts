/**
 * Agent logs in the `logs` collection: one document per line, keyed by an
 * integer id that grows with time (see log-ids.ts), read in keyset pages.
 *
 * Written for FerretDB v1 as much as for MongoDB: no counter document (updates
 * are not atomic there), no TTL index (retention is {@link LogStore.purgeOlderThan},
 * called periodically), no transactions. Uniqueness comes from the one thing
 * that is atomic everywhere: inserting a document whose `_id` exists fails
 * with a duplicate-key error.
 *
 * Reading consistency. Ids are drawn before the insert, and several writers
 * (API server replicas, and overlapping requests in one) insert concurrently,
 * so an entry can become visible after one with a greater id. A reader
 * following the log with `afterId` would skip it for good. So readers see
 * entries only up to a horizon below which every entry is stored: below the
 * smallest id this store is still inserting (exact, for the overlapping
 * requests of one process), and at least `settleMs` old (for other
 * processes, assumed to complete an insert within `settleMs` of drawing its
 * id, with clocks that agree to well within it under NTP). A cursor taken
 * from a page never moves past an entry that could still appear.
 */
import { MongoBulkWriteError, MongoServerError, type Collection, type Filter } from 'mongodb';
import type { Environment } from '../accounts/model.js';
import { firstIdOf, IDS_PER_MS, LogIdAllocator } from './log-ids.js';
import { inferLevel, truncateMessage, type LogLevel, type LogStream } from './log-lines.js';

/** One stored log line. */
export interface LogDoc {
  /** The entry's integer id: the keyset cursor of the API. */
  _id: number;
  accountId: string;
  environment: Environment;
  agentId: string;
  deploymentId: string | null;
  /** When the line was written (as its sender reports), the retention clock. */
  timestamp: Date;
  stream: LogStream;
  level: LogLevel;
  message: string;
}

/** A line to append; `level` is inferred from the stream and text when absent. */
export interface NewLogEntry {
  accountId: string;
  environment: Environment;
  agentId: string;
  deploymentId?: string | null;
  /** Defaults to the time of the append. */
  timestamp?: Date;
  stream: LogStream;
  level?: LogLevel;
  /** Cut to MAX_MESSAGE_BYTES (log-lines.ts). */
  message: string;
}

/** What to read: one agent of one tenant, one page, optional filters. */
export interface LogQuery {
  accountId: string;
  environment: Environment;
  agentId: string;
  /** Read forward: the oldest entries with a greater id. Exclusive with `beforeId`. */
  afterId?: number;
  /** Read backward: the newest entries with a smaller id. Exclusive with `afterId`. */
  beforeId?: number;
  /** Page size, 1 to MAX_PAGE_SIZE. */
  limit: number;
  /** Only these streams (all when absent or empty). */
  streams?: readonly LogStream[];
  /** Only these levels (all when absent or empty). */
  levels?: readonly LogLevel[];
  /** Only entries whose timestamp is at or after this. */
  since?: Date;
}

/**
 * A page of entries and the cursors around it. Every filter of the query
 * applies to the cursors too.
 */
export interface LogPage {
  /** Ascending by id (oldest first), whichever direction was read. */
  items: LogDoc[];
  /**
   * Send as `afterId` to read the entries newer than this page: the id of its
   * last item; on an empty page the `afterId` sent, or 0 when none was (no
   * entry matched, so every later match comes after 0). Never null: newer
   * entries can always still arrive.
   */
  nextAfterId: number;
  /**
   * Send as `beforeId` to read the entries older than this page: the id of its
   * first item (the `afterId` sent + 1 on an empty forward page); null when no
   * older entry exists.
   */
  nextBeforeId: number | null;
  /**
   * More entries exist beyond this page in the direction read: newer ones for
   * a forward (`afterId`) page, older ones otherwise.
   */
  hasMore: boolean;
}

/** Options of {@link LogStore}. */
export interface LogStoreOptions {
  /** The clock ids are drawn from and the read horizon is measured on. */
  now?: () => number;
  /** How old an id must be before readers see its entry; see the module comment. */
  settleMs?: number;
}

/** Lines per insert; `append` splits longer lists. Also the ingestion route's cap. */
export const MAX_APPEND_BATCH = 1000;
/** Largest page. */
export const MAX_PAGE_SIZE = 1000;
/** The contract's log retention: 7 days. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Default of {@link LogStoreOptions.settleMs}: well above an insert's latency
 * on another replica, and short enough that a line a run prints is readable
 * within a second (with the operator's shipping delay, log-shipper.ts).
 */
export const DEFAULT_SETTLE_MS = 400;

const DUPLICATE_KEY = 11000;
/** Rounds of fresh ids before giving up; each round some writer makes progress. */
const MAX_INSERT_ROUNDS = 100;

/**
 * Appends, reads and expires agent log lines. Use one instance per process:
 * its id allocator keeps that process's ids strictly increasing. Instances in
 * any number of processes may share the collection.
 */
export class LogStore {
  private readonly ids: LogIdAllocator;
  private readonly now: () => number;
  private readonly settleMs: number;
  /** The first id of each insert in progress, by insert: what readers must not pass yet. */
  private readonly inserting = new Map<symbol, number>();
  private retried = 0;

  constructor(
    private readonly collection: Collection<LogDoc>,
    options: LogStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.ids = new LogIdAllocator(this.now);
  }

  /**
   * Creates the indexes: `{accountId, environment, agentId, _id}` for reading
   * one agent's log in id order, `{timestamp}` for the retention purge.
   * Idempotent; call once at startup.
   */
  static async ensureIndexes(collection: Collection<LogDoc>): Promise<void> {
    await collection.createIndex(
      { accountId: 1, environment: 1, agentId: 1, _id: 1 },
      { name: 'agent_log' },
    );
    await collection.createIndex({ timestamp: 1 }, { name: 'timestamp_1' });
  }

  /** How many entries were re-inserted with a fresh id after another writer took theirs. */
  get retriedEntries(): number {
    return this.retried;
  }

  /**
   * Stores `entries` in order and returns their ids, in the same order and
   * increasing. Messages are cut to MAX_MESSAGE_BYTES; a missing level is
   * inferred, a missing timestamp is now. Inserts are ordered: when another
   * writer already holds an id, the insert stops there and that entry and
   * every one after it get fresh (greater) ids and are inserted again, so a
   * batch's lines keep their order. Resolves once every entry is stored.
   */
  async append(entries: readonly NewLogEntry[]): Promise<number[]> {
    const ids: number[] = [];
    for (let start = 0; start < entries.length; start += MAX_APPEND_BATCH) {
      const at = new Date(this.now());
      const docs = entries
        .slice(start, start + MAX_APPEND_BATCH)
        .map((entry): Omit<LogDoc, '_id'> => ({
          accountId: entry.accountId,
          environment: entry.environment,
          agentId: entry.agentId,
          deploymentId: entry.deploymentId ?? null,
          timestamp: entry.timestamp ?? at,
          stream: entry.stream,
          level: entry.level ?? inferLevel(entry.stream, entry.message),
          message: truncateMessage(entry.message),
        }));
      ids.push(...(await this.insertInOrder(docs)));
    }
    return ids;
  }

  /** Reads one page; see {@link LogPage} for its order and cursors. */
  async query(q: LogQuery): Promise<LogPage> {
    if (q.afterId !== undefined && q.beforeId !== undefined) {
      throw new RangeError('afterId and beforeId are mutually exclusive');
    }
    const limit = Math.min(Math.max(1, Math.floor(q.limit)), MAX_PAGE_SIZE);
    const horizon = this.horizon();
    const where = (ids: { $gt?: number; $lt?: number }): Filter<LogDoc> => ({
      ...scope(q),
      _id: { ...ids, $lte: horizon },
    });

    if (q.afterId !== undefined) {
      const docs = await this.collection
        .find(where({ $gt: q.afterId }))
        .sort({ _id: 1 })
        .limit(limit + 1)
        .toArray();
      const items = docs.slice(0, limit);
      const bound = items[0]?._id ?? q.afterId + 1;
      const older = await this.collection.findOne(where({ $lt: bound }), {
        projection: { _id: 1 },
      });
      return {
        items,
        nextAfterId: items.at(-1)?._id ?? q.afterId,
        nextBeforeId: older ? bound : null,
        hasMore: docs.length > limit,
      };
    }

    const docs = await this.collection
      .find(where(q.beforeId === undefined ? {} : { $lt: q.beforeId }))
      .sort({ _id: -1 })
      .limit(limit + 1)
      .toArray();
    const items = docs.slice(0, limit).reverse();
    const hasMore = docs.length > limit;
    return {
      items,
      nextAfterId: items.at(-1)?._id ?? 0,
      nextBeforeId: hasMore ? (items[0]?._id ?? null) : null,
      hasMore,
    };
  }

  /**
   * Deletes every entry whose timestamp is before `cutoff` and returns how many
   * went. The stand-in for a TTL index: call it periodically with
   * `now - LOG_RETENTION_MS`; any replica may.
   */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    const result = await this.collection.deleteMany({ timestamp: { $lt: cutoff } });
    return result.deletedCount;
  }

  /** The newest id a reader may see now (see the module comment). */
  private horizon(): number {
    let horizon = firstIdOf(this.now() - this.settleMs) + IDS_PER_MS - 1;
    for (const first of this.inserting.values()) horizon = Math.min(horizon, first - 1);
    return horizon;
  }

  /** Inserts `docs` in order under fresh ids, retrying from the first id another writer held. */
  private async insertInOrder(docs: Omit<LogDoc, '_id'>[]): Promise<number[]> {
    const ids: number[] = [];
    let pending = docs;
    const insert = Symbol('insert');
    try {
      for (let round = 0; pending.length > 0; round++) {
        if (round === MAX_INSERT_ROUNDS) {
          throw new Error(`log ids kept colliding after ${MAX_INSERT_ROUNDS} rounds`);
        }
        const batch = pending.map((doc) => ({ _id: this.ids.next(), ...doc }));
        // Held until the insert ends: entries already stored stay below the ids it still writes.
        if (!this.inserting.has(insert)) this.inserting.set(insert, batch[0]?._id ?? 0);
        try {
          await this.collection.insertMany(batch, { ordered: true });
          ids.push(...batch.map((doc) => doc._id));
          return ids;
        } catch (err) {
          const failedAt = duplicateIndex(err);
          if (failedAt === null) throw err;
          // An ordered insert stored everything before the failed entry, nothing from it on.
          ids.push(...batch.slice(0, failedAt).map((doc) => doc._id));
          pending = pending.slice(failedAt);
          this.retried += pending.length;
        }
      }
      return ids;
    } finally {
      this.inserting.delete(insert);
    }
  }
}

/** The filter of one agent of one tenant, and the query's stream, level and time filters. */
function scope(q: LogQuery): Filter<LogDoc> {
  return {
    accountId: q.accountId,
    environment: q.environment,
    agentId: q.agentId,
    ...(q.streams?.length ? { stream: { $in: [...q.streams] } } : {}),
    ...(q.levels?.length ? { level: { $in: [...q.levels] } } : {}),
    ...(q.since ? { timestamp: { $gte: q.since } } : {}),
  };
}

/**
 * The index in an ordered insert of the entry that failed on a duplicate
 * `_id`; null for any other failure.
 */
function duplicateIndex(err: unknown): number | null {
  if (err instanceof MongoBulkWriteError) {
    const [first] = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
    return first?.code === DUPLICATE_KEY ? first.index : null;
  }
  // A single-document batch may surface as a plain server error.
  if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 0;
  return null;
}
