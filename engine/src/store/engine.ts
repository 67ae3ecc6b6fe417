/**
 * The engine: the set of collections and their durability. Every write is encoded,
 * applied in memory, appended to the collection's write-ahead log, and acknowledged only
 * once the log record is synced, so a crash loses no acknowledged write and the log holds
 * only writes that applied. When a log grows past `snapshotBytes` the collection is
 * snapshotted and the log restarted. Opening the engine loads each collection's snapshot
 * and replays its log after it; a record that will not replay is set aside in the
 * collection's quarantine (persistence/quarantine.ts), reported, and skipped, so one bad
 * record never keeps the engine from starting.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { collectionNotFound, conflict, EngineError, pointNotFound } from '../errors.js';
import { decodeRecord, encodeRecord } from '../persistence/record-codec.js';
import type { LoggedOperation } from '../persistence/record-codec.js';
import { quarantinedCount, quarantineRecord } from '../persistence/quarantine.js';
import type { QuarantinedRecord } from '../persistence/quarantine.js';
import { readSnapshot, writeSnapshot } from '../persistence/snapshot.js';
import { WriteAheadLog } from '../persistence/wal.js';
import { Collection } from './collection.js';
import type { IndexPolicy } from './collection.js';
import type { CollectionConfig } from './collection-config.js';
import type { Operation } from './operations.js';

/** How the engine stores and indexes. */
export interface EngineOptions {
  dataDir: string;
  /** Log size (bytes) that triggers a snapshot. */
  snapshotBytes: number;
  index: IndexPolicy;
  /** Told of each log record recovery sets aside (the engine logs it loudly). */
  onQuarantine?: (event: QuarantineEvent) => void;
}

/** A log record recovery could not replay and moved to the collection's quarantine. */
export interface QuarantineEvent {
  collection: string;
  /** The quarantine file now holding it. */
  file: string;
  /** Where it was: the log segment file and the byte offset of its frame. */
  segment: string;
  offset: number;
  seq?: number;
  reason: string;
}

interface Entry {
  collection: Collection;
  wal: WriteAheadLog;
  dir: string;
  seq: number;
  snapshotting: boolean;
}

const NAME_FORBIDDEN = /[/\\\0]/;

/** Checks a collection name as Qdrant does (1 to 255 characters, no path separators). */
export function validateCollectionName(name: string): void {
  if (
    name.length === 0 ||
    name.length > 255 ||
    NAME_FORBIDDEN.test(name) ||
    name === '.' ||
    name === '..'
  ) {
    throw new EngineError(
      422,
      `Validation error in path parameters: [name: collection name must be 1 to 255 characters and contain no / \\ or NUL]`,
    );
  }
}

/** All collections and their storage. */
export class Engine {
  private readonly entries = new Map<string, Entry>();
  private readonly root: string;
  private quarantinedAtOpen = 0;

  private constructor(private readonly options: EngineOptions) {
    this.root = join(options.dataDir, 'collections');
  }

  /** Opens the data directory, recovering every collection in it. */
  static async open(options: EngineOptions): Promise<Engine> {
    const engine = new Engine(options);
    mkdirSync(engine.root, { recursive: true });
    for (const name of readdirSync(engine.root)) {
      const dir = join(engine.root, name);
      // Leftovers of a create or delete that a crash interrupted.
      if (name.startsWith('.')) {
        await rm(dir, { recursive: true, force: true });
        continue;
      }
      await engine.load(dir);
    }
    return engine;
  }

  private async load(dir: string): Promise<void> {
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as CollectionConfig;
    const collection = new Collection(config, this.options.index);
    const snapshot = readSnapshot(dir, config.size);
    let seq = 0;
    if (snapshot) {
      for (const { field, schema } of snapshot.indexes) {
        collection.apply({ type: 'create_index', field, schema }, snapshot.seq);
      }
      const { points } = collection;
      snapshot.ids.forEach((id, i) => {
        const vector = snapshot.vectors.subarray(i * config.size, (i + 1) * config.size);
        const slot = points.put(id, vector, snapshot.payloads[i]!, snapshot.versions[i]!);
        for (const index of collection.fieldIndexes.values())
          index.add(slot, points.payloads[slot]!);
      });
      collection.lastSeq = seq = snapshot.seq;
      collection.vectorIndex.noteWrite();
    }
    const { wal, records, unreadable } = await WriteAheadLog.open(join(dir, 'wal'), seq + 1);
    const setAside: QuarantinedRecord[] = unreadable.map((bytes) => ({
      ...bytes,
      reason: 'bytes in the middle of the log that frame no record (bad length or checksum)',
    }));
    for (const { body, segment, offset } of records) {
      let record: LoggedOperation | undefined;
      try {
        record = decodeRecord(body, config.size);
        if (record.seq <= seq) continue;
        collection.apply(record.op, record.seq);
        seq = record.seq;
      } catch (error) {
        // Only records a request could not have produced fail here (written by hand, by a
        // version that logged before validating, or rotted under a good checksum).
        setAside.push({
          segment,
          offset,
          ...(record ? { seq: record.seq } : {}),
          reason: (error as Error).message,
          bytes: body,
        });
        if (record) seq = Math.max(seq, record.seq);
      }
    }
    const entry: Entry = { collection, wal, dir, seq, snapshotting: false };
    if (setAside.length > 0) {
      for (const item of setAside) {
        const file = quarantineRecord(dir, item);
        this.options.onQuarantine?.({
          collection: config.name,
          file,
          segment: item.segment,
          offset: item.offset,
          ...(item.seq === undefined ? {} : { seq: item.seq }),
          reason: item.reason,
        });
      }
      this.quarantinedAtOpen += setAside.length;
      // A snapshot of what did replay drops the log that holds them, so the next start
      // does not meet them again; they live on only in the quarantine.
      collection.lastSeq = seq;
      await this.snapshot(entry);
    }
    this.entries.set(config.name, entry);
  }

  /**
   * What recovery set aside: records quarantined while this process opened the data
   * directory, and per collection the items its quarantine holds now (until an operator
   * deletes them).
   */
  recovery(): { quarantinedAtOpen: number; quarantined: Record<string, number> } {
    const counts = [...this.entries].map(([name, entry]) => [name, quarantinedCount(entry.dir)]);
    // fromEntries defines own properties: a collection may be called `__proto__`.
    const quarantined = Object.fromEntries(counts.filter(([, count]) => count !== 0));
    return { quarantinedAtOpen: this.quarantinedAtOpen, quarantined };
  }

  /** Names of all collections. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /** A collection, or Qdrant's 404. */
  get(name: string): Collection {
    const entry = this.entries.get(name);
    if (!entry) throw collectionNotFound(name);
    return entry.collection;
  }

  /** Whether a collection exists. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Creates a collection; Qdrant's 409 when the name is taken. */
  async create(config: CollectionConfig): Promise<void> {
    validateCollectionName(config.name);
    if (this.entries.has(config.name)) {
      throw conflict(`Collection \`${config.name}\` already exists!`);
    }
    const tmp = join(this.root, `.tmp-${randomBytes(6).toString('hex')}`);
    mkdirSync(tmp);
    await writeFile(join(tmp, 'config.json'), JSON.stringify(config));
    await syncPath(join(tmp, 'config.json'));
    // A create racing another create of the same name: the second one loses here.
    if (this.entries.has(config.name)) {
      await rm(tmp, { recursive: true, force: true });
      throw conflict(`Collection \`${config.name}\` already exists!`);
    }
    const dir = join(this.root, encodeURIComponent(config.name));
    renameSync(tmp, dir);
    await syncPath(this.root);
    const collection = new Collection(config, this.options.index);
    const { wal } = await WriteAheadLog.open(join(dir, 'wal'), 1);
    this.entries.set(config.name, { collection, wal, dir, seq: 0, snapshotting: false });
  }

  /** Deletes a collection; false when it did not exist. */
  async delete(name: string): Promise<boolean> {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    entry.collection.close();
    await entry.wal.close();
    const trash = join(this.root, `.deleted-${randomBytes(6).toString('hex')}`);
    renameSync(entry.dir, trash);
    await syncPath(this.root);
    await rm(trash, { recursive: true, force: true });
    return true;
  }

  /**
   * Applies and logs one write. Resolves with its sequence number once durable; rejects
   * with Qdrant's 404 for a listed point that does not exist after it is durable too,
   * because the operation was applied to the points that do.
   *
   * The operation is encoded and applied before it is logged: one that cannot be encoded
   * or applied throws here, is never logged, and so is never met again by a replay. The
   * record joins the log's queue in the same synchronous step as the application, so the
   * log's order is the order of application; a read may see the write before it is
   * durable, as it could when the record was appended first.
   */
  async write(name: string, op: Operation): Promise<number> {
    const entry = this.entries.get(name);
    if (!entry) throw collectionNotFound(name);
    const seq = entry.seq + 1;
    const record = encodeRecord(seq, op);
    const missing = entry.collection.apply(op, seq);
    entry.seq = seq;
    await entry.wal.append(record);
    if (entry.wal.bytes > this.options.snapshotBytes) await this.snapshot(entry);
    if (missing !== undefined) throw pointNotFound(missing);
    return seq;
  }

  private async snapshot(entry: Entry): Promise<void> {
    if (entry.snapshotting) return;
    entry.snapshotting = true;
    try {
      writeSnapshot(entry.dir, entry.collection);
      await entry.wal.rotate(entry.collection.lastSeq + 1);
    } finally {
      entry.snapshotting = false;
    }
  }

  /** Snapshots collections with a non-empty log and closes everything. */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) {
      entry.collection.close();
      if (entry.wal.bytes > 0) await this.snapshot(entry);
      await entry.wal.close();
    }
    this.entries.clear();
  }
}

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
