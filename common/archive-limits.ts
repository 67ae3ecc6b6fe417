/**
 * Bounds on what a code archive expands to, checked while it streams. The API
 * server's upload scan and the builders' unpack parse archives through
 * {@link extractWithin}, so both count the same way: an archive the API
 * accepted never fails the builder's check, and a gzip bomb or an archive of
 * a million empty files is stopped after at most one limit's worth of work,
 * long before it could fill a disk.
 */
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type ExtractEvents } from 'tar-stream';
import type { ArchiveLimits } from '../crds/src/index.js';

/** Which limit an archive passed, as the API's error names it. */
export type ArchiveLimit = 'unpacked_bytes' | 'entries' | 'file_bytes';

/**
 * What the tar stream may carry beyond the files' own bytes, per entry: its
 * 512-byte header, up to 511 bytes of padding, and a long-name or pax header
 * before it (GNU tar writes paths of up to 4096 bytes that way).
 */
const OVERHEAD_PER_ENTRY = 8 * 1024;
/** The end-of-archive blocks and a tar record's padding, with room to spare. */
const OVERHEAD_PER_ARCHIVE = 1024 * 1024;

function size(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value} ${units[unit]}`;
}

/** Thrown as soon as an archive passes one of its limits. */
export class ArchiveLimitError extends Error {
  constructor(
    readonly limit: ArchiveLimit,
    readonly allowed: number,
    /** The entry that passed the limit, when one did. */
    readonly path: string | null = null,
  ) {
    super(
      limit === 'entries'
        ? `The archive has more than ${allowed} entries (the limit is ${allowed} files, directories and links).`
        : limit === 'file_bytes'
          ? `The file ${path ?? '(unnamed)'} in the archive is larger than ${size(allowed)}, the limit for one file.`
          : `The archive unpacks to more than ${size(allowed)}, the limit for all its files together.`,
    );
    this.name = 'ArchiveLimitError';
  }
}

/** Counts what an archive unpacks to; each count throws {@link ArchiveLimitError} past its limit. */
export class ArchiveMeter {
  private entries = 0;
  private unpacked = 0;
  private streamed = 0;
  private readonly maxStreamed: number;

  constructor(readonly limits: ArchiveLimits) {
    this.maxStreamed =
      limits.maxUnpackedBytes + (limits.maxEntries + 1) * OVERHEAD_PER_ENTRY + OVERHEAD_PER_ARCHIVE;
  }

  /**
   * Counts an entry whose header declares `bytes` of content, before any of it
   * is read: an entry over a limit is refused on its header alone.
   */
  entry(path: string, bytes: number): void {
    this.entries++;
    if (this.entries > this.limits.maxEntries)
      throw new ArchiveLimitError('entries', this.limits.maxEntries, path);
    if (bytes > this.limits.maxFileBytes)
      throw new ArchiveLimitError('file_bytes', this.limits.maxFileBytes, path);
    this.unpacked += bytes;
    if (this.unpacked > this.limits.maxUnpackedBytes)
      throw new ArchiveLimitError('unpacked_bytes', this.limits.maxUnpackedBytes, path);
  }

  /**
   * Counts `bytes` out of the decompressor. Beyond the files, a tar stream holds
   * only headers and padding; more than that (an endless run of zero blocks,
   * say) is refused as too much to unpack.
   */
  decompressed(bytes: number): void {
    this.streamed += bytes;
    if (this.streamed > this.maxStreamed)
      throw new ArchiveLimitError('unpacked_bytes', this.limits.maxUnpackedBytes);
  }

  /** A pass-through stream that counts what flows through it with {@link decompressed}. */
  counter(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        try {
          this.decompressed(chunk.length);
        } catch (err) {
          done(err as Error);
          return;
        }
        done(null, chunk);
      },
    });
  }
}

/** Handles one entry (header, content stream, `next`); calls `next` once the stream is read to its end. */
export type EntryHandler = (...entry: ExtractEvents['entry']) => void;

/**
 * Parses the tar.gz `source` and hands each entry to `onEntry`, but only once
 * the entry is counted within `limits`. Rejects with {@link ArchiveLimitError}
 * as soon as a limit is passed (nothing more is read or decompressed), or with
 * the decompressor's or the parser's error for bytes that are not a tar.gz.
 */
export async function extractWithin(
  source: Readable,
  limits: ArchiveLimits,
  onEntry: EntryHandler,
): Promise<void> {
  const meter = new ArchiveMeter(limits);
  const tar = extract();
  tar.on('entry', (header, stream, next) => {
    // A failure of the whole archive destroys the entry's stream too; the pipeline reports it.
    stream.on('error', () => undefined);
    try {
      meter.entry(header.name, header.size ?? 0);
    } catch (err) {
      tar.destroy(err as Error);
      return;
    }
    onEntry(header, stream, next);
  });
  await pipeline(source, createGunzip(), meter.counter(), tar);
}
