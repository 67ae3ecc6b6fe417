/**
 * Aggregation of repeated Events, after client-go's events library: an Event
 * of the same object, type, reason and note as one recorded within
 * {@link SERIES_WINDOW_MS} is not a new object but the next of that one's
 * series (`series.count`, `series.lastObservedTime`). Transitions alone make
 * Events (transitions.ts), so a repeat means a flapping object, or a
 * reconcile that read a stale cache and saw the same transition twice. Pure:
 * the recorder asks it what to write and tells it what it wrote.
 */

/** How long an Event stays the one a repeat of it adds to (client-go's is 6 minutes). */
export const SERIES_WINDOW_MS = 6 * 60_000;

/** How many Events are remembered (the oldest are forgotten first). */
export const SERIES_REMEMBERED = 4096;

/** A recorded Event that repeats add to. */
interface Recorded {
  namespace: string;
  name: string;
  count: number;
  lastObservedAt: number;
}

/** What to write for an Event: a new object, or the next count of a recorded one's series. */
export type SeriesDecision =
  { write: 'create' } | { write: 'series'; namespace: string; name: string; count: number };

/** The Events recorded lately, by what makes two of them the same. */
export class EventSeries {
  private readonly recorded = new Map<string, Recorded>();

  constructor(
    private readonly windowMs = SERIES_WINDOW_MS,
    private readonly remembered = SERIES_REMEMBERED,
  ) {}

  /** What makes two Events the same: the object (by uid), type, reason and note. */
  static key(uid: string, type: string, reason: string, note: string): string {
    return JSON.stringify([uid, type, reason, note]);
  }

  /** What to write for an Event of `key` observed at `now` (ms). */
  decide(key: string, now: number): SeriesDecision {
    const last = this.recorded.get(key);
    if (!last || now - last.lastObservedAt > this.windowMs) return { write: 'create' };
    return { write: 'series', namespace: last.namespace, name: last.name, count: last.count + 1 };
  }

  /** Remembers that the Event of `key` was written: created as `namespace/name`, or counted. */
  written(key: string, now: number, created?: { namespace: string; name: string }): void {
    const last = this.recorded.get(key);
    this.recorded.delete(key);
    if (created) {
      this.recorded.set(key, { ...created, count: 1, lastObservedAt: now });
    } else if (last) {
      this.recorded.set(key, { ...last, count: last.count + 1, lastObservedAt: now });
    }
    // Oldest first in insertion order: a Map keeps it, and a write re-inserts.
    while (this.recorded.size > this.remembered) {
      const oldest = this.recorded.keys().next().value as string;
      this.recorded.delete(oldest);
    }
  }

  /** Forgets `key` (its Event is gone: the next one is created anew). */
  forget(key: string): void {
    this.recorded.delete(key);
  }
}
