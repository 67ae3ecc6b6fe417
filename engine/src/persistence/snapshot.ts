/**
 * Snapshots of a collection's live points: `meta.json` (sequence number covered, ids,
 * versions, payload indexes), `vectors.f32` and `payloads.jsonl`, written to a temporary
 * directory, synced and swapped in by rename, so a crash at any moment leaves either the
 * old snapshot or the new one. Once a snapshot is durable the log before it is dropped.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { IndexSchema } from '../index/payload-index.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';
import type { Collection } from '../store/collection.js';
import { ABSENT_PAYLOAD } from '../store/point-store.js';

/** What a snapshot holds, loaded. */
export interface SnapshotData {
  seq: number;
  ids: PointId[];
  versions: number[];
  vectors: Float32Array;
  payloads: JsonObject[];
  indexes: { field: string; schema: IndexSchema }[];
}

interface SnapshotMeta {
  seq: number;
  ids: PointId[];
  versions: number[];
  indexes: { field: string; schema: IndexSchema }[];
}

function writeFileSynced(path: string, chunks: Iterable<Uint8Array | string>): void {
  const fd = openSync(path, 'w');
  try {
    for (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a snapshot of the collection's state into `dir/snapshot`. */
export function writeSnapshot(dir: string, collection: Collection): void {
  const { points } = collection;
  const tmp = join(dir, 'snapshot.tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  const slots = [...points.liveSlots()];
  const meta: SnapshotMeta = {
    seq: collection.lastSeq,
    ids: slots.map((s) => points.ids[s]!),
    versions: slots.map((s) => points.versions[s]!),
    indexes: collection.indexSchemas().map(({ field, schema }) => ({ field, schema })),
  };
  const dim = points.dim;
  const data = points.vectors.data;
  writeFileSynced(
    join(tmp, 'vectors.f32'),
    (function* () {
      for (const s of slots) {
        yield new Uint8Array(data.buffer, data.byteOffset + s * dim * 4, dim * 4).slice();
      }
    })(),
  );
  writeFileSynced(
    join(tmp, 'payloads.jsonl'),
    (function* () {
      for (const s of slots) {
        const payload = points.payloads[s];
        yield (payload === ABSENT_PAYLOAD ? 'null' : JSON.stringify(payload)) + '\n';
      }
    })(),
  );
  writeFileSynced(join(tmp, 'meta.json'), [JSON.stringify(meta)]);
  syncDir(tmp);
  const current = join(dir, 'snapshot');
  const old = join(dir, 'snapshot.old');
  rmSync(old, { recursive: true, force: true });
  if (existsSync(current)) renameSync(current, old);
  renameSync(tmp, current);
  syncDir(dir);
  rmSync(old, { recursive: true, force: true });
}

/** Reads the collection's snapshot, or undefined when it has none yet. */
export function readSnapshot(dir: string, dim: number): SnapshotData | undefined {
  // A crash between the two renames leaves only the old snapshot, which is still whole.
  const path = [join(dir, 'snapshot'), join(dir, 'snapshot.old')].find((p) =>
    existsSync(join(p, 'meta.json')),
  );
  if (!path) return undefined;
  const meta = JSON.parse(readFileSync(join(path, 'meta.json'), 'utf8')) as SnapshotMeta;
  const bytes = readFileSync(join(path, 'vectors.f32'));
  // Copied out: a small file's Buffer may sit at an offset a Float32Array cannot start at.
  const vectors = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + meta.ids.length * dim * 4),
  );
  const lines = readFileSync(join(path, 'payloads.jsonl'), 'utf8').split('\n');
  const payloads = meta.ids.map(
    (_, i) => (JSON.parse(lines[i]!) as JsonObject | null) ?? ABSENT_PAYLOAD,
  );
  return { ...meta, vectors, payloads };
}
