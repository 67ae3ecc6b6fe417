/**
 * Where recovery sets aside what it cannot replay: a log record that does not decode or
 * fails to apply, or bytes in the middle of the log that frame no record. One bad record
 * must not keep the engine, and with it every tenant's collections, from starting; nor
 * may it be lost. Each item becomes one file in the collection's `wal-quarantine/`
 * directory, beside its `wal/`: JSON saying where it was (segment file, byte offset,
 * sequence number when known), why it was set aside, and its bytes (base64), so an
 * operator can inspect it and delete the file once dealt with. The count of files is
 * what the engine reports.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The directory, inside a collection's directory, that holds its quarantined records. */
export const QUARANTINE_DIR = 'wal-quarantine';

/** One thing recovery set aside. */
export interface QuarantinedRecord {
  /** The log segment file it was in. */
  segment: string;
  /** Byte offset of its frame (or of the unreadable bytes) in the segment. */
  offset: number;
  /** The operation's sequence number, when the record decoded far enough to tell. */
  seq?: number;
  /** Why it could not be replayed. */
  reason: string;
  /** The record body (or the unreadable bytes), exactly as the log held them. */
  bytes: Buffer;
}

/**
 * Writes one item into `<collectionDir>/wal-quarantine/`, synced, and returns the file's
 * path. The name comes from the item's position, so setting the same record aside again
 * (a crash before the log dropped it) rewrites the same file.
 */
export function quarantineRecord(collectionDir: string, item: QuarantinedRecord): string {
  const dir = join(collectionDir, QUARANTINE_DIR);
  mkdirSync(dir, { recursive: true });
  const name = `${item.segment.replace(/\.log$/, '')}-${item.offset}.json`;
  const path = join(dir, name);
  const text = JSON.stringify({
    segment: item.segment,
    offset: item.offset,
    seq: item.seq ?? null,
    reason: item.reason,
    quarantined_at: new Date().toISOString(),
    bytes_base64: item.bytes.toString('base64'),
  });
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    const bytes = Buffer.from(text + '\n');
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return path;
}

/** How many items a collection's quarantine holds. */
export function quarantinedCount(collectionDir: string): number {
  try {
    return readdirSync(join(collectionDir, QUARANTINE_DIR)).filter((f) => f.endsWith('.json'))
      .length;
  } catch {
    return 0;
  }
}
