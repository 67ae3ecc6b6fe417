/**
 * The bytes of one engine request being assembled: ranges of the caller's
 * chunks are copied straight in, so a batch costs one copy of its bytes and
 * no per-point Buffer views or final concatenation.
 *
 * Buffers are reused: within a request once the engine has answered the
 * previous batch (a 2xx to an upsert means the engine read every byte, so the
 * buffer is no longer needed), and across requests through a small pool.
 * Allocating megabytes outside V8's heap for every upsert made V8 run a full
 * collection every few requests (it collects on external memory pressure).
 */
export class BatchWriter {
  private used = 0;

  private constructor(private buffer: Buffer) {}

  /**
   * A writer on a pooled buffer when one is idle, else on a new one of about
   * `expectedBytes` (a batch's size, so it rarely has to grow). Hand it back
   * with {@link release}.
   */
  static acquire(expectedBytes = INITIAL_BYTES): BatchWriter {
    const pooled = idle.pop();
    if (pooled) {
      idleBytes -= pooled.length;
      return new BatchWriter(pooled);
    }
    return new BatchWriter(Buffer.allocUnsafe(Math.max(expectedBytes, 64 * 1024)));
  }

  /** Bytes written since the last {@link reset}. */
  get length(): number {
    return this.used;
  }

  /** Appends `source[start, end)`. */
  write(source: Buffer, start = 0, end = source.length): void {
    const size = end - start;
    if (this.used + size > this.buffer.length) this.grow(this.used + size);
    source.copy(this.buffer, this.used, start, end);
    this.used += size;
  }

  /** The bytes written, as a view valid until the next write after {@link reset}. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  /**
   * Starts the next batch in the same buffer as `size` bytes the caller fills
   * (a batch read back from a spool); returns the view to fill.
   */
  claim(size: number): Buffer {
    this.used = 0;
    if (size > this.buffer.length) this.grow(size);
    this.used = size;
    return this.buffer.subarray(0, size);
  }

  /** Starts the next batch in the same buffer. */
  reset(): void {
    this.used = 0;
  }

  /**
   * Returns the buffer to the pool. Only once nothing reads it any more: the
   * engine has answered every batch sent from it with a success.
   */
  release(): void {
    const size = this.buffer.length;
    if (size <= MAX_POOLED_BYTES && idleBytes + size <= MAX_IDLE_BYTES) {
      idle.push(this.buffer);
      idleBytes += size;
    }
    this.buffer = Buffer.alloc(0);
    this.used = 0;
  }

  private grow(needed: number): void {
    const next = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(next, 0, 0, this.used);
    this.buffer = next;
  }
}

const INITIAL_BYTES = 1024 * 1024;
/**
 * The largest buffer kept (a batch is flushed from 4 MB on, plus one point),
 * and the most kept in all: enough for 16 concurrent upserts of 4 MB batches.
 */
const MAX_POOLED_BYTES = 8 * 1024 * 1024;
const MAX_IDLE_BYTES = 80 * 1024 * 1024;
const idle: Buffer[] = [];
let idleBytes = 0;
