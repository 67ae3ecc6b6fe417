/**
 * Ships what agent processes print, and the platform's own events about them,
 * to the API server's log ingestion route in batches (the operator never
 * writes MongoDB itself). Lines are split on newlines. A line is sent at most
 * `maxDelayMs` after it is buffered (a batch fills up at once: it goes at
 * once), so a line a run prints is readable within a second; a failed send is
 * retried `retryMs` later, and the buffer is bounded so a long outage drops
 * the oldest lines rather than the operator. Dropped lines are counted: the
 * next batch of that agent starts with a `system` line saying how many went.
 */
import { internalToken } from '../../../common/internal-token.js';
import type { Logger } from '../../../common/logger.js';

/** One line to ship. */
export interface LogLine {
  deployment_id: string | null;
  timestamp: string;
  stream: 'stdout' | 'stderr' | 'system';
  message: string;
  level?: string;
}

/** Who the lines belong to. */
export interface LogOwner {
  agentId: string;
  accountId: string;
  environment: string;
}

/** Lines buffered per agent before the oldest are dropped (about 10 s of a 10,000 lines/s burst). */
export const MAX_BUFFERED = 100_000;
/** Characters buffered per agent before the oldest lines are dropped, whatever their number. */
export const MAX_BUFFERED_CHARS = 32 * 1024 * 1024;
/** Lines per request. */
export const BATCH = 500;

/** Timing of a {@link LogShipper}. */
export interface ShipperTiming {
  /** The longest a buffered line waits before it is sent. */
  maxDelayMs: number;
  /** The wait after a failed send before the next try. */
  retryMs: number;
}

const DEFAULT_TIMING: ShipperTiming = { maxDelayMs: 50, retryMs: 2000 };

/** Batches lines per agent and posts them within `maxDelayMs` of the first one buffered. */
export class LogShipper {
  private readonly buffers = new Map<
    string,
    { owner: LogOwner; lines: LogLine[]; dropped: number; chars: number }
  >();
  private readonly timing: ShipperTiming;
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires (ms since the epoch). */
  private due = 0;
  private flushing: Promise<void> | null = null;
  /** The last send failed: the retry timer is armed, and new lines wait for it. */
  private backingOff = false;
  private closed = false;

  constructor(
    private readonly apiUrl: string,
    private readonly secret: string,
    private readonly log: Logger,
    timing: Partial<ShipperTiming> = {},
  ) {
    this.timing = { ...DEFAULT_TIMING, ...timing };
  }

  /** Queues a line; it is sent within `maxDelayMs`, with a full batch at once. */
  push(owner: LogOwner, line: Omit<LogLine, 'timestamp'> & { timestamp?: string }): void {
    let buffer = this.buffers.get(owner.agentId);
    if (!buffer) {
      buffer = { owner, lines: [], dropped: 0, chars: 0 };
      this.buffers.set(owner.agentId, buffer);
    }
    buffer.lines.push({ ...line, timestamp: line.timestamp ?? new Date().toISOString() });
    buffer.chars += line.message.length;
    let over = 0;
    while (
      buffer.lines.length - over > MAX_BUFFERED ||
      (buffer.chars > MAX_BUFFERED_CHARS && over < buffer.lines.length - 1)
    ) {
      buffer.chars -= buffer.lines[over]!.message.length;
      over += 1;
    }
    if (over > 0) {
      buffer.lines.splice(0, over);
      buffer.dropped += over;
    }
    if (!this.backingOff) this.schedule(buffer.lines.length >= BATCH ? 0 : this.timing.maxDelayMs);
  }

  /** Arms the flush timer to fire within `ms`; an earlier one already armed stays. */
  private schedule(ms: number): void {
    if (this.closed) return;
    const due = Date.now() + ms;
    if (this.timer && this.due <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
    this.timer.unref();
  }

  private buffered(): boolean {
    for (const buffer of this.buffers.values()) if (buffer.lines.length > 0) return true;
    return false;
  }

  /** Returns a sink that splits a process's output into lines. */
  sink(
    owner: LogOwner,
    deploymentId: string,
    stream: 'stdout' | 'stderr',
  ): (chunk: Buffer) => void {
    let pending = '';
    return (chunk) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const message of lines)
        if (message.length > 0) this.push(owner, { deployment_id: deploymentId, stream, message });
    };
  }

  /**
   * Sends what is buffered; resolves when done (one flush at a time). Lines
   * that arrive meanwhile, or that a failure left behind, get a flush of
   * their own after it.
   */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.send().then((sent) => {
      this.flushing = null;
      this.backingOff = !sent;
      if (this.buffered()) this.schedule(sent ? 0 : this.timing.retryMs);
    });
    return this.flushing;
  }

  /** False when a send failed (the lines stay buffered). */
  private async send(): Promise<boolean> {
    for (const [agentId, buffer] of this.buffers) {
      if (buffer.dropped > 0) {
        const dropped = buffer.dropped;
        buffer.dropped = 0;
        this.log.warn('agent log lines dropped: the buffer was full', { agent: agentId, dropped });
        const notice: LogLine = {
          deployment_id: buffer.lines[0]?.deployment_id ?? null,
          timestamp: buffer.lines[0]?.timestamp ?? new Date().toISOString(),
          stream: 'system',
          level: 'warn',
          message: `${dropped} earlier line(s) were dropped: the agent printed faster than its logs could be stored`,
        };
        buffer.lines.unshift(notice);
        buffer.chars += notice.message.length;
      }
      while (buffer.lines.length > 0) {
        const batch = buffer.lines.slice(0, BATCH);
        const url = `${this.apiUrl}/internal/agents/${agentId}/logs?token=${internalToken(this.secret, 'logs:write', agentId)}`;
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              account_id: buffer.owner.accountId,
              environment: buffer.owner.environment,
              entries: batch,
            }),
          });
          if (!res.ok) throw new Error(`log ingestion answered ${res.status}`);
          buffer.lines.splice(0, batch.length);
          for (const sent of batch) buffer.chars -= sent.message.length;
        } catch (err) {
          this.log.warn('log shipping failed; will retry', { agent: agentId, err: String(err) });
          return false;
        }
      }
    }
    return true;
  }

  /** Sends what is buffered, once more, and arms no timer after. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
    // Lines that arrived while a flush already under way was sending.
    if (this.buffered()) await this.flush();
  }
}
