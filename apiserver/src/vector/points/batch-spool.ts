/**
 * The batches of a streamed upsert, held on disk until the whole body has
 * been read and checked: nothing is written to the engine before the gateway
 * knows the request is valid (a point past 10,000, a bad id, a strict schema
 * violation, or an `update_filter` after `points`, which must guard every
 * batch). On disk rather than in memory, so a 500 MB body still costs the
 * gateway one batch of memory. The file is unlinked as soon as it is opened,
 * so nothing is left behind whatever happens to the request or the process.
 */
import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Batches appended in order and read back in the same order. */
export class BatchSpool {
  private file: FileHandle | null = null;
  private readonly sizes: number[] = [];
  private end = 0;

  /** How many batches are held. */
  get length(): number {
    return this.sizes.length;
  }

  /** Holds a copy of `bytes` as the next batch. */
  async append(bytes: Buffer): Promise<void> {
    this.file ??= await openUnlinked();
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.file.write(
        bytes,
        written,
        bytes.length - written,
        this.end + written,
      );
      written += bytesWritten;
    }
    this.sizes.push(bytes.length);
    this.end += bytes.length;
  }

  /**
   * Each batch in order, read into a view `reserve` hands out for its size.
   * A view is read before the next one is asked for, so one buffer can serve.
   */
  async *batches(reserve: (size: number) => Buffer): AsyncGenerator<Buffer> {
    let position = 0;
    for (const size of this.sizes) {
      const view = reserve(size);
      let read = 0;
      while (read < size) {
        const { bytesRead } = await this.file!.read(view, read, size - read, position + read);
        if (bytesRead === 0) throw new Error('The upsert spool ended before its batches did.');
        read += bytesRead;
      }
      position += size;
      yield view;
    }
  }

  /** Closes the file (already unlinked); safe to call more than once. */
  async close(): Promise<void> {
    const file = this.file;
    this.file = null;
    await file?.close();
  }
}

async function openUnlinked(): Promise<FileHandle> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-upsert-'));
  try {
    return await open(join(dir, 'batches'), 'w+', 0o600);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
