/**
 * Code archives and build artifacts in GridFS, streamed in and out, never held
 * whole in memory. Uploads are capped; the cap aborts the upload and removes
 * what was written.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, ObjectId, type Db } from 'mongodb';

/** A stored file. */
export interface StoredFile {
  id: string;
  size: number;
  sha256: string;
}

/** Thrown when an upload exceeds its cap. */
export class ArchiveTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The archive exceeds ${maxBytes} bytes.`);
  }
}

/** A GridFS bucket of archives (`archives`) or artifacts (`artifacts`). */
export class ArchiveStore {
  private readonly bucket: GridFSBucket;

  constructor(db: Db, bucketName: 'archives' | 'artifacts') {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  /**
   * Streams `source` into a new file; `onData` sees every chunk on its way
   * (the deploy scans the archive in the same pass) and may slow it down.
   */
  async save(
    source: Readable,
    filename: string,
    metadata: Record<string, unknown>,
    maxBytes: number,
    onData?: (chunk: Buffer) => void | Promise<void>,
  ): Promise<StoredFile> {
    const upload = this.bucket.openUploadStream(filename, { metadata });
    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new ArchiveTooLargeError(maxBytes));
        hash.update(chunk);
        // Awaiting the observer carries its backpressure back to the request.
        Promise.resolve(onData?.(chunk)).then(() => done(null, chunk), done);
      },
    });
    // The source is piped, not pipelined: on a failure it is left unread rather than
    // destroyed, so the HTTP response that explains the failure can still be sent.
    const onSourceError = (err: Error) => meter.destroy(err);
    source.on('error', onSourceError);
    source.pipe(meter);
    try {
      await pipeline(meter, upload);
    } catch (err) {
      source.unpipe(meter);
      source.pause();
      await this.bucket.delete(upload.id).catch(() => undefined);
      throw err;
    } finally {
      source.off('error', onSourceError);
    }
    return { id: upload.id.toHexString(), size, sha256: hash.digest('hex') };
  }

  /** A stream of the file's bytes. */
  open(id: string): Readable {
    return this.bucket.openDownloadStream(new ObjectId(id));
  }

  /** True when the file exists. */
  async exists(id: string): Promise<boolean> {
    if (!ObjectId.isValid(id)) return false;
    return (
      (
        await this.bucket
          .find({ _id: new ObjectId(id) })
          .limit(1)
          .toArray()
      ).length > 0
    );
  }

  /** The id of the newest file named `filename`, or null. */
  async findByName(filename: string): Promise<string | null> {
    const [file] = await this.bucket.find({ filename }).sort({ uploadDate: -1 }).limit(1).toArray();
    return file ? file._id.toHexString() : null;
  }

  /** Deletes the file; a missing file is not an error. */
  async delete(id: string): Promise<void> {
    if (!ObjectId.isValid(id)) return;
    await this.bucket.delete(new ObjectId(id)).catch((err: unknown) => {
      if (!String((err as Error).message).includes('File not found')) throw err;
    });
  }
}
