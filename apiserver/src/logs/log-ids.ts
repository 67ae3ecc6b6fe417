/**
 * Log entry ids without a shared counter (FerretDB v1 has no atomic `$inc`):
 * `id = milliseconds * 1000 + seq`, with `seq` a per-process sequence that
 * restarts at 0 each millisecond. Ids of one allocator strictly increase;
 * two processes can draw the same id, which the unique `_id` of the `logs`
 * collection turns into a duplicate-key error the writer retries with a fresh
 * id (see LogStore). Ids stay below 2^53 until the year 2255, so they are
 * exact JavaScript numbers and BSON doubles.
 */
import { performance } from 'node:perf_hooks';

/** Ids per millisecond per process: `seq` runs 0-999. */
export const IDS_PER_MS = 1000;

/** How long an exhausted millisecond waits for the clock before running ahead of it. */
const MAX_WAIT_MS = 2;

/** The millisecond an id was allocated in (the clock of its writer). */
export function idMillis(id: number): number {
  return Math.floor(id / IDS_PER_MS);
}

/** The smallest id of millisecond `ms`. */
export function firstIdOf(ms: number): number {
  return ms * IDS_PER_MS;
}

/**
 * Hands out strictly increasing integer ids from a clock. Synchronous, so the
 * ids of one call are contiguous in allocation order even when callers
 * overlap.
 */
export class LogIdAllocator {
  private lastMs = -1;
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** One id, greater than every id this allocator returned before. */
  next(): number {
    const ms = this.now();
    if (ms > this.lastMs) {
      this.lastMs = ms;
      this.seq = 0;
    } else if (this.seq >= IDS_PER_MS) {
      // This millisecond is used up: wait for the next one, which takes under a
      // millisecond. A clock stepped back (or one that does not move) is not
      // waited for: the allocator runs ahead of it, one millisecond at a time,
      // so its ids still increase.
      this.lastMs = Math.max(this.waitPast(this.lastMs), this.lastMs + 1);
      this.seq = 0;
    }
    return firstIdOf(this.lastMs) + this.seq++;
  }

  /** `count` ids, increasing. */
  take(count: number): number[] {
    return Array.from({ length: count }, () => this.next());
  }

  private waitPast(ms: number): number {
    const deadline = performance.now() + MAX_WAIT_MS;
    let current = this.now();
    while (current === ms && performance.now() < deadline) current = this.now();
    return current;
  }
}
