/**
 * Reads a tar.gz code archive as a stream, once, keeping only what the deploy
 * checks need: every entry's path and mode, and the text of small files that
 * may be configuration or source (svc.yaml, a Dockerfile, an entry point).
 * Memory stays bounded whatever the archive's size, and so does the work: the
 * plan's archive limits stop the scan as soon as one is passed.
 */
import type { Readable } from 'node:stream';
import type { ArchiveLimits } from '../../../crds/src/index.js';
import { ArchiveLimitError, extractWithin } from '../../../common/archive-limits.js';

/** What a scan of an archive found. */
export interface ArchiveScan {
  /** Every regular file: path relative to the archive root, and its mode bits. */
  files: Array<{ path: string; mode: number }>;
  /** Text of the small files kept, by path. */
  texts: Map<string, string>;
}

/** Thrown when the bytes are not a gzip-compressed tar archive. */
export class InvalidArchiveError extends Error {}

const KEPT =
  /(^|\/)(svc\.ya?ml|Dockerfile|requirements\.txt|package\.json)$|\.(py|js|mjs|cjs|ts|mts|cts)$/;
const MAX_FILE_KEPT = 512 * 1024;
const MAX_TOTAL_KEPT = 8 * 1024 * 1024;

/** Strips `./` and leading slashes; null for paths that escape the root. */
export function normalizeEntryPath(name: string): string | null {
  const parts = name
    .replace(/^\/+/, '')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return null;
  return parts.join('/');
}

/**
 * Scans `source` (gzip-compressed tar). Rejects with ArchiveLimitError as soon
 * as the archive passes one of `limits`, and with InvalidArchiveError when it
 * is not a tar.gz.
 */
export async function scanArchive(source: Readable, limits: ArchiveLimits): Promise<ArchiveScan> {
  const files: ArchiveScan['files'] = [];
  const texts = new Map<string, string>();
  let kept = 0;
  try {
    await extractWithin(source, limits, (header, stream, next) => {
      const path = normalizeEntryPath(header.name);
      const keep =
        header.type === 'file' &&
        path !== null &&
        KEPT.test(path) &&
        (header.size ?? 0) <= MAX_FILE_KEPT &&
        kept + (header.size ?? 0) <= MAX_TOTAL_KEPT;
      if (header.type === 'file' && path) files.push({ path, mode: header.mode ?? 0o644 });
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => {
        if (keep) chunks.push(chunk as Buffer);
      });
      stream.on('end', () => {
        if (keep && path) {
          const buf = Buffer.concat(chunks);
          kept += buf.length;
          texts.set(path, buf.toString('utf8'));
        }
        next();
      });
      stream.resume();
    });
  } catch (err) {
    if (err instanceof ArchiveLimitError) throw err;
    throw new InvalidArchiveError(`The upload is not a tar.gz archive: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return { files, texts };
}
