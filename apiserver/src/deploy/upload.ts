/**
 * One pass over an uploaded archive: the bytes go to GridFS and, on the way,
 * through the scanner. A scan that fails (the bytes are not a tar.gz, or they
 * unpack past the plan's limits) stops the upload there and then, and what
 * was stored of it is removed: a gzip bomb is refused after at most one
 * limit's worth of work, and nothing of it stays in the archive store.
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { ArchiveLimits } from '../../../crds/src/index.js';
import { scanArchive, type ArchiveScan } from './archive-scan.js';
import type { ArchiveStore, StoredFile } from './archive-store.js';

/** Stores and scans `source` in one pass; rejects with the scan's error when the scan fails. */
export async function storeAndScan(
  store: ArchiveStore,
  source: Readable,
  filename: string,
  metadata: Record<string, unknown>,
  maxBytes: number,
  limits: ArchiveLimits,
): Promise<{ stored: StoredFile; scan: ArchiveScan }> {
  const scanInput = new PassThrough();
  const scanning = scanArchive(scanInput, limits);
  // A scan that fails early must not leave the upload waiting; its error is read below.
  scanning.catch(() => undefined);
  // Resolves when the scan has not failed; rejects with its error when it has.
  const scanOutcome = async () => {
    await scanning;
  };
  let stored: StoredFile;
  try {
    stored = await store.save(source, filename, metadata, maxBytes, async (chunk) => {
      // The scanner stopped reading: its error, not a storage error, ends the upload.
      if (scanInput.destroyed) return scanOutcome();
      if (!scanInput.write(chunk))
        await Promise.race([once(scanInput, 'drain'), once(scanInput, 'close')]).catch(scanOutcome);
    });
  } catch (err) {
    scanInput.destroy();
    throw err;
  }
  scanInput.end();
  try {
    return { stored, scan: await scanning };
  } catch (err) {
    await store.delete(stored.id);
    throw err;
  }
}
