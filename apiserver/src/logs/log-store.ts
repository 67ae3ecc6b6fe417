/**
 * Agent logs in MongoDB, as chunks (log-chunks.ts): one document per append
 * of up to MAX_CHUNK_LINES lines of one agent, keyed by the agent and a chunk
 * number, and two small documents per agent saying where its chunks end and
 * where they start (LogHeadDoc).
 *
 * Every read and write is a lookup by `_id`, because FerretDB's SQLite backend
 * (the single-machine platform's MongoDB) pushes no other filter down to SQL:
 * a query on any other field reads the whole collection, which made reading one
 * agent's log take seconds once the platform held a few ten thousand lines.
 * Nothing here needs an atomic update, a transaction or a secondary index.
 *
 * Chunk numbers without holes. A writer stores chunk n by inserting its key;
 * the key is unique, so of two writers (API server replicas) that try the same
 * n one fails with a duplicate key and tries the next number. A writer tries n
 * only once it knows n - 1 is stored (it stored it, met it as a duplicate, or
 * found it by lookup), so the chunks of an agent are one unbroken range and a
 * reader that finds chunk n stored knows every chunk before it is too. A line
 * is therefore readable as soon as its insert returns, and a follower reading
 * with `afterId` never skips one written later by a slower writer. Appends of
 * one agent in one process go one at a time, in the order they were made.
 */
import { MongoServerError, type Collection } from 'mongodb';
import type { Environment } from '../accounts/model.js';
import {
  chunkDocId,
  cutIntoChunks,
  firstDocId,
  lineId,
  MAX_CHUNK_LINES,
  ownerKey,
  type ChunkLine,
  type LogChunkDoc,
  type LogHeadDoc,
  type LogItem,
  type LogOwner,
} from './log-chunks.js';
import { inferLevel, truncateMessage, type LogLevel, type LogStream } from './log-lines.js';
import { firstHolding, sequenceEnd } from '../store/sequence-end.js';
import { readBackward, readForward, type ChunkSource } from './log-pages.js';

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
  items: LogItem[];
  /**
   * Send as `afterId` to read the entries newer than this page: the id of the
   * last entry the read examined (its last item, or a later entry the filters
   * left out); on a page that examined nothing the `afterId` sent, or 0 for a
   * backward read. Never null: newer entries can always still arrive.
   */
  nextAfterId: number;
  /**
   * Send as `beforeId` to read the entries older than this page: the id of its
   * first item (the `afterId` sent + 1 on an empty forward page); null when no
   * older entry exists.
   */
  nextBeforeId: number | null;
  /**
   * More entries may exist beyond this page in the direction read: newer ones
   * for a forward (`afterId`) page, older ones otherwise.
   */
  hasMore: boolean;
}

/** Lines per insert; `append` splits longer lists. Also the ingestion route's cap. */
export const MAX_APPEND_BATCH = MAX_CHUNK_LINES;
/** Largest page. */
export const MAX_PAGE_SIZE = 1000;
/** The contract's log retention: 7 days. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

const DUPLICATE_KEY = 11000;
/** Chunk numbers one insert tries before giving up (each one another writer just took). */
const MAX_INSERT_ROUNDS = 100;

/**
 * Appends, reads and expires agent log lines. Use one instance per process:
 * it orders that process's appends per agent. Instances in any number of
 * processes may share the collections.
 */
export class LogStore {
  /** Per agent: a chunk known to be stored (the last this process saw). */
  private readonly known = new Map<string, number>();
  /** Per agent: the append in progress, which the next one waits for. */
  private readonly tails = new Map<string, Promise<unknown>>();
  private retried = 0;

  constructor(
    private readonly chunks: Collection<LogChunkDoc>,
    private readonly heads: Collection<LogHeadDoc>,
  ) {}

  /** Creates the index the retention purge reads by. Idempotent; call once at startup. */
  static async ensureIndexes(chunks: Collection<LogChunkDoc>): Promise<void> {
    await chunks.createIndex({ newest: 1 }, { name: 'newest_1' });
  }

  /** How many chunks were inserted again under the next number after another writer took theirs. */
  get retriedChunks(): number {
    return this.retried;
  }

  /**
   * Stores `entries` in order and returns their ids, in the same order and
   * increasing per agent. Messages are cut to MAX_MESSAGE_BYTES; a missing
   * level is inferred, a missing timestamp is now. Resolves once every entry
   * is stored (and readable).
   */
  async append(entries: readonly NewLogEntry[]): Promise<number[]> {
    const ids: number[] = [];
    const at = new Date();
    for (const run of runsByOwner(entries)) {
      const key = ownerKey(run[0]!);
      for (const lines of cutIntoChunks(run.map((entry) => storedLine(entry, at)))) {
        const chunk = await this.inOrder(key, () => this.insertChunk(key, run[0]!, lines));
        ids.push(...lines.map((_, i) => lineId(chunk, i)));
      }
    }
    return ids;
  }

  /** Reads one page; see {@link LogPage} for its order and cursors. */
  async query(q: LogQuery): Promise<LogPage> {
    if (q.afterId !== undefined && q.beforeId !== undefined) {
      throw new RangeError('afterId and beforeId are mutually exclusive');
    }
    const limit = Math.min(Math.max(1, Math.floor(q.limit)), MAX_PAGE_SIZE);
    const source = this.source(ownerKey(q));
    const accept = lineFilter(q);
    return q.afterId !== undefined
      ? readForward(source, q.afterId, limit, accept)
      : readBackward(source, q.beforeId, limit, accept);
  }

  /**
   * Deletes each agent's chunks whose newest line is older than `cutoff`, from
   * its oldest chunk up to the first one still in retention (so the chunks left
   * stay one range), and returns how many lines went. The stand-in for a TTL
   * index: call it periodically with `now - LOG_RETENTION_MS`; any replica may.
   */
  async purgeOlderThan(cutoff: Date): Promise<number> {
    const expired = await this.chunks
      .find(
        { newest: { $lt: cutoff } },
        { projection: { chunk: 1, accountId: 1, environment: 1, agentId: 1, lines: 1 } },
      )
      .toArray();
    const byOwner = new Map<string, Map<number, number>>();
    for (const doc of expired) {
      const key = ownerKey(doc);
      if (!byOwner.has(key)) byOwner.set(key, new Map());
      byOwner.get(key)!.set(doc.chunk, doc.lines.length);
    }
    let deleted = 0;
    for (const [key, lineCounts] of byOwner) {
      const from = await this.headFirst(key);
      let next = from;
      while (lineCounts.has(next)) next += 1;
      if (next === from) continue;
      // The start moves first, so a reader never looks for a chunk about to go; it is read
      // back, since another purge's rewrite of the document may have put back an older one.
      await this.raiseFirst(key, next);
      for (let chunk = from; chunk < next; chunk++) {
        await this.chunks.deleteOne({ _id: chunkDocId(key, chunk) });
        deleted += lineCounts.get(chunk)!;
      }
    }
    return deleted;
  }

  /** The agent's `first` as its document holds it (1 when it has none). */
  private async headFirst(key: string): Promise<number> {
    return (await this.heads.findOne({ _id: firstDocId(key) }))?.first ?? 1;
  }

  /** Raises the agent's `first` to at least `first`, until a read shows it there. */
  private async raiseFirst(key: string, first: number): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.heads.updateOne({ _id: firstDocId(key) }, { $max: { first } }, { upsert: true });
      } catch (err) {
        // Another purge created the document at the same moment: read it and go on.
        if (!isDuplicateKey(err)) throw err;
      }
      if ((await this.headFirst(key)) >= first) return;
    }
    throw new Error('the log start kept being put back by another writer');
  }

  /** Runs `task` after the agent's appends in progress, and before the next. */
  private inOrder<T>(key: string, task: () => Promise<T>): Promise<T> {
    const run = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Inserts `lines` as the agent's next chunk; returns its number. */
  private async insertChunk(key: string, owner: LogOwner, lines: ChunkLine[]): Promise<number> {
    let chunk = (this.known.get(key) ?? (await this.findLast(key))) + 1;
    const newest = new Date(Math.max(...lines.map((line) => line.timestamp.getTime())));
    for (let round = 0; round < MAX_INSERT_ROUNDS; round++) {
      try {
        await this.chunks.insertOne({
          _id: chunkDocId(key, chunk),
          accountId: owner.accountId,
          environment: owner.environment,
          agentId: owner.agentId,
          chunk,
          newest,
          lines,
        });
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another writer stored this number: it and all before it exist.
        this.retried += 1;
        chunk = (await this.findLast(key, chunk)) + 1;
        continue;
      }
      this.known.set(key, chunk);
      // The lines are stored: a head that cannot be raised is a stale hint, not a failed append.
      await this.raiseHead(key, chunk).catch(() => undefined);
      return chunk;
    }
    throw new Error(`log chunk numbers kept being taken after ${MAX_INSERT_ROUNDS} tries`);
  }

  /**
   * Records `chunk` as stored in the agent's head. Two writers creating the head at once
   * make one upsert fail on the duplicate key; the update is then tried once more.
   */
  private async raiseHead(key: string, chunk: number): Promise<void> {
    const raise = () =>
      this.heads.updateOne({ _id: key }, { $max: { last: chunk } }, { upsert: true });
    try {
      await raise();
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await raise();
    }
  }

  /** The agent's chunks, looked up by key. */
  private source(key: string): ChunkSource {
    return {
      chunk: async (n) => (await this.chunks.findOne({ _id: chunkDocId(key, n) }))?.lines ?? null,
      first: () => this.findFirst(key),
      last: () => this.findLast(key),
    };
  }

  /** Whether the agent's chunk `n` is stored (a lookup by key, its lines not read). */
  private async chunkStored(key: string, n: number): Promise<boolean> {
    return (
      (await this.chunks.findOne({ _id: chunkDocId(key, n) }, { projection: { _id: 1 } })) !== null
    );
  }

  /**
   * The agent's oldest stored chunk (its newest + 1 when none is): its `first`, checked.
   * When that chunk is missing (a purge between raising `first` and its reader, or an
   * update lost to another purge), the first one stored is searched for between it and the
   * newest.
   */
  private async findFirst(key: string): Promise<number> {
    const first = await this.headFirst(key);
    if (await this.chunkStored(key, first)) return first;
    const last = await this.findLast(key);
    // Empty, or it was when looked at: the chunks that came since start at `first`.
    if (last < first || (await this.chunkStored(key, first))) return first;
    // Missing below the first stored, stored from it to the last.
    return firstHolding(first, last, (n) => this.chunkStored(key, n));
  }

  /**
   * The agent's newest stored chunk, found from `atLeast` (a chunk known to be
   * stored) or its head by lookups (sequenceEnd): the stored chunks are one
   * range, so a chunk exists exactly when it lies between the first and the last.
   */
  private async findLast(key: string, atLeast = 0): Promise<number> {
    const [head, first] = await Promise.all([
      this.heads.findOne({ _id: key }),
      this.headFirst(key),
    ]);
    const from = Math.max(atLeast, head?.last ?? 0, this.known.get(key) ?? 0, first - 1);
    const last = await sequenceEnd(from, (n) => this.chunkStored(key, n));
    if (last >= first) this.known.set(key, Math.max(last, this.known.get(key) ?? 0));
    return last;
  }
}

/** Whether `err` is MongoDB's duplicate-key error. */
function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** Consecutive entries of one agent, in order. */
function runsByOwner(entries: readonly NewLogEntry[]): NewLogEntry[][] {
  const runs: NewLogEntry[][] = [];
  for (const entry of entries) {
    const run = runs.at(-1);
    if (run && ownerKey(run[0]!) === ownerKey(entry)) run.push(entry);
    else runs.push([entry]);
  }
  return runs;
}

/** A new entry as it is stored. */
function storedLine(entry: NewLogEntry, at: Date): ChunkLine {
  return {
    timestamp: entry.timestamp ?? at,
    stream: entry.stream,
    level: entry.level ?? inferLevel(entry.stream, entry.message),
    message: truncateMessage(entry.message),
    deploymentId: entry.deploymentId ?? null,
  };
}

/** The query's stream, level and time filters as a test of one line. */
function lineFilter(q: LogQuery): (line: ChunkLine) => boolean {
  const streams = q.streams?.length ? new Set(q.streams) : null;
  const levels = q.levels?.length ? new Set(q.levels) : null;
  const since = q.since?.getTime();
  return (line) =>
    (!streams || streams.has(line.stream)) &&
    (!levels || levels.has(line.level)) &&
    (since === undefined || line.timestamp.getTime() >= since);
}
