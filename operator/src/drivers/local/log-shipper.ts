/**
 * Ships what agent processes print, and the platform's own events about them,
 * to the API server's log ingestion route in batches (the operator never
 * writes MongoDB itself). Lines are split on newlines; a failed send is
 * retried with the next flush, and the buffer is bounded so a long outage
 * drops the oldest lines rather than the operator.
 */
import { internalToken } from '../../../../common/internal-token.js';
import type { Logger } from '../../../../common/logger.js';

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

const MAX_BUFFERED = 10_000;
const BATCH = 500;

/** Batches lines per agent and posts them every `intervalMs`. */
export class LogShipper {
  private readonly buffers = new Map<string, { owner: LogOwner; lines: LogLine[] }>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly apiUrl: string,
    private readonly secret: string,
    private readonly log: Logger,
    intervalMs = 500,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Queues a line. */
  push(owner: LogOwner, line: Omit<LogLine, 'timestamp'> & { timestamp?: string }): void {
    let buffer = this.buffers.get(owner.agentId);
    if (!buffer) {
      buffer = { owner, lines: [] };
      this.buffers.set(owner.agentId, buffer);
    }
    buffer.lines.push({ ...line, timestamp: line.timestamp ?? new Date().toISOString() });
    if (buffer.lines.length > MAX_BUFFERED)
      buffer.lines.splice(0, buffer.lines.length - MAX_BUFFERED);
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

  /** Sends what is buffered; resolves when done (one flush at a time). */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.send().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async send(): Promise<void> {
    for (const [agentId, buffer] of this.buffers) {
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
        } catch (err) {
          this.log.warn('log shipping failed; will retry', { agent: agentId, err: String(err) });
          return;
        }
      }
    }
  }

  /** Stops the timer after a last flush. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
