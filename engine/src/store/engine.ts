/**
 * The engine: the set of collections and their durability. Every write is encoded,
 * appended to the collection's write-ahead log, applied in memory, and acknowledged only
 * once the log record is synced, so a crash loses no acknowledged write. When a log grows
 * past `snapshotBytes` the collection is snapshotted and the log restarted. Opening the
 * engine loads each collection's snapshot and replays its log after it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { collectionNotFound, conflict, EngineError } from '../errors.js';
import { decodeRecord, encodeRecord } from '../persistence/record-codec.js';
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
    const { wal, bodies } = await WriteAheadLog.open(join(dir, 'wal'), seq + 1);
    for (const body of bodies) {
      const record = decodeRecord(body, config.size);
      if (record.seq <= seq) continue;
      try {
        collection.apply(record.op, record.seq);
      } catch (error) {
        // The same error was returned to the client when the write was first made.
        if (!(error instanceof EngineError)) throw error;
      }
      seq = record.seq;
    }
    this.entries.set(config.name, { collection, wal, dir, seq, snapshotting: false });
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
   * Logs and applies one write. Resolves with its sequence number once durable; rejects
   * with the operation's error (a missing point) after it is durable too, because the
   * part before the error was applied.
   */
  async write(name: string, op: Operation): Promise<number> {
    const entry = this.entries.get(name);
    if (!entry) throw collectionNotFound(name);
    const seq = ++entry.seq;
    const durable = entry.wal.append(encodeRecord(seq, op));
    let failure: unknown;
    try {
      entry.collection.apply(op, seq);
    } catch (error) {
      failure = error;
    }
    await durable;
    if (entry.wal.bytes > this.options.snapshotBytes) await this.snapshot(entry);
    if (failure) throw failure;
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
