/**
 * One pass over an uploaded archive: the bytes go to GridFS and, on the way,
 * through the scanner. A failed scan removes the stored file.
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { scanArchive, type ArchiveScan } from './archive-scan.js';
import type { ArchiveStore, StoredFile } from './archive-store.js';

/** Stores and scans `source` in one pass. */
export async function storeAndScan(
  store: ArchiveStore,
  source: Readable,
  filename: string,
  metadata: Record<string, unknown>,
  maxBytes: number,
): Promise<{ stored: StoredFile; scan: ArchiveScan }> {
  const scanInput = new PassThrough();
  const scanning = scanArchive(scanInput);
  // A scan that fails early must not leave the upload waiting; its error is read below.
  scanning.catch(() => undefined);
  let stored: StoredFile;
  try {
    stored = await store.save(source, filename, metadata, maxBytes, async (chunk) => {
      if (scanInput.destroyed) return;
      if (!scanInput.write(chunk))
        await Promise.race([once(scanInput, 'drain'), once(scanInput, 'close')]);
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
