/**
 * Writes usage events in batches: meters call {@link UsageWriter.record} on
 * the request path and return at once; the writer inserts what it holds when
 * `maxEvents` are buffered or `maxDelayMs` after the first, and on
 * {@link UsageWriter.close} (the server's shutdown). Requests are coalesced
 * while buffered: one event per kind, tenant, agent and minute, carrying the
 * count and the bytes, so a busy agent costs a few documents a minute, not
 * one per request. A failed insert keeps the batch for the next flush (the
 * buffer is bounded; past it the oldest events are dropped and logged as a
 * count, never with their contents).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../common/logger.js';
import { REQUEST_KINDS, usageEventDoc, type UsageEventDoc, type UsageEventInput } from './model.js';

/** Where batches go: inserts that ignore events already stored under the same id. */
export type UsageSink = (events: UsageEventDoc[]) => Promise<void>;

/** Timing and size of the batches. */
export interface UsageWriterOptions {
  /** Events (after coalescing) that trigger a flush at once. */
  maxEvents: number;
  /** The longest an event waits in the buffer. */
  maxDelayMs: number;
  /** Events kept while the database is unreachable. */
  maxBuffered: number;
  now: () => Date;
}

const DEFAULTS: UsageWriterOptions = {
  maxEvents: 500,
  maxDelayMs: 1000,
  maxBuffered: 100_000,
  now: () => new Date(),
};

const MINUTE_MS = 60_000;

/** Anything that records usage (the writer, or a test's list). */
export interface UsageRecorder {
  record(event: UsageEventInput): void;
}

/** The buffered writer. */
export class UsageWriter implements UsageRecorder {
  private readonly options: UsageWriterOptions;
  /** Events waiting, by coalescing key (requests) or id (everything else). */
  private pending = new Map<string, UsageEventDoc>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly sink: UsageSink,
    private readonly log: Logger,
    options: Partial<UsageWriterOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Buffers an event (coalescing requests); never throws, never waits. */
  record(input: UsageEventInput): void {
    if (this.closed) {
      this.log.warn('usage event after close dropped', { kind: input.kind });
      return;
    }
    const now = this.options.now();
    // The id is drawn only for an event held anew: most requests add to their minute's event.
    const doc = usageEventDoc(input, '', now);
    if (REQUEST_KINDS.includes(doc.kind)) {
      const minute = Math.floor(doc.at.getTime() / MINUTE_MS);
      const key = `${doc.kind}|${doc.accountId}|${doc.environment}|${doc.agentId ?? ''}|${minute}`;
      const held = this.pending.get(key);
      if (held) {
        held.count += doc.count;
        held.bytes += doc.bytes;
        if (doc.at > held.at) held.at = doc.at;
        if (doc.startedAt < held.startedAt) held.startedAt = doc.startedAt;
      } else this.pending.set(key, withId(doc));
    } else {
      this.pending.set(`id|${withId(doc)._id}`, doc);
    }
    this.trim();
    if (this.pending.size >= this.options.maxEvents) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs).unref();
  }

  /** Writes what is buffered now; resolves when it (and any write before it) is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  /** Flushes and stops taking events. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private async write(batch: UsageEventDoc[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.sink(batch);
    } catch (err) {
      this.log.warn('usage events not written yet; kept for the next flush', {
        events: batch.length,
        err: err instanceof Error ? err.message : String(err),
      });
      for (const doc of batch) this.pending.set(`id|${doc._id}`, doc);
      this.trim();
      if (!this.closed)
        this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs).unref();
    }
  }

  private trim(): void {
    const excess = this.pending.size - this.options.maxBuffered;
    if (excess <= 0) return;
    const keys = [...this.pending.keys()].slice(0, excess);
    for (const key of keys) this.pending.delete(key);
    this.log.warn('usage buffer full: oldest events dropped', { dropped: excess });
  }
}

/** `doc` with a random id when it has none of its own. */
function withId(doc: UsageEventDoc): UsageEventDoc {
  if (!doc._id) doc._id = randomUUID();
  return doc;
}
