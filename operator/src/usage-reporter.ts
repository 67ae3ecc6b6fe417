/**
 * Reports what the operator saw agents use to the API server's
 * `POST /internal/usage` (the operator never writes MongoDB itself): a
 * service machine's run from start to stop, a run, a build, each with its
 * real start and stop times. Reports are batched (sent within `maxDelayMs`,
 * a full batch at once) and retried after a failure; every event has a
 * stable id, so one sent twice is stored once. {@link UsageReporter.close}
 * sends what is left.
 */
import { internalToken, USAGE_TOKEN_SUBJECT } from '../../common/internal-token.js';
import type { Logger } from '../../common/logger.js';
import type { Agent, AgentDeployment } from '../../crds/src/index.js';

/** One event, as the route takes it. */
export interface UsageReport {
  id: string;
  account_id: string;
  environment: 'live' | 'test';
  agent_id: string | null;
  deployment_id: string | null;
  kind: 'compute' | 'run' | 'build';
  started_at: string;
  ended_at: string;
  memory_mb?: number;
}

/** Where reports go (the reporter, or a test's list). */
export interface UsageReports {
  report(event: UsageReport): void;
}

const BATCH = 200;
const MAX_BUFFERED = 50_000;
const SEND_TIMEOUT_MS = 10_000;

/** The owner fields of an event about `agent`. */
export function usageOwner(
  agent: Pick<Agent, 'metadata' | 'spec'>,
): Pick<UsageReport, 'account_id' | 'environment' | 'agent_id'> {
  return {
    account_id: agent.spec.userId,
    environment: (agent.metadata.namespace ?? '').startsWith('svc-test-') ? 'test' : 'live',
    agent_id: agent.metadata.name ?? null,
  };
}

/**
 * The events of a finished run (a `run` and the `compute` of its machine) or
 * build, from the times the driver observed; none when it never started.
 */
export function finishedTaskEvents(
  agent: Pick<Agent, 'metadata' | 'spec'>,
  deployment: AgentDeployment,
  kind: 'run' | 'build',
  startedAt: string | null | undefined,
  stoppedAt: string | null | undefined,
): UsageReport[] {
  if (!startedAt || !stoppedAt) return [];
  const id = deployment.metadata.name ?? '';
  const base = {
    ...usageOwner(agent),
    deployment_id: id,
    started_at: startedAt,
    ended_at: stoppedAt,
  };
  const events: UsageReport[] = [{ ...base, id: `${kind}:${id}`, kind }];
  if (kind === 'run') {
    events.push({
      ...base,
      id: `compute:run:${id}`,
      kind: 'compute',
      memory_mb: deployment.spec.config.memoryMb,
    });
  }
  return events;
}

/** Batches reports to the API server. */
export class UsageReporter implements UsageReports {
  private buffer: UsageReport[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly apiUrl: string,
    private readonly secret: string,
    private readonly log: Logger,
    private readonly timing = { maxDelayMs: 500, retryMs: 2000 },
  ) {}

  /** Queues an event. */
  report(event: UsageReport): void {
    this.buffer.push(event);
    if (this.buffer.length > MAX_BUFFERED) {
      const dropped = this.buffer.length - MAX_BUFFERED;
      this.buffer.splice(0, dropped);
      this.log.warn('usage reports dropped: the API server has not taken them', { dropped });
    }
    this.arm(this.buffer.length >= BATCH ? 0 : this.timing.maxDelayMs);
  }

  /** Sends everything queued now; resolves once sent (or failed and requeued). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sending = this.sending.then(() => this.sendAll());
    return this.sending;
  }

  /** Sends what is left. */
  async close(): Promise<void> {
    await this.flush();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), ms).unref();
  }

  private async sendAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH);
      try {
        const token = internalToken(this.secret, 'usage:write', USAGE_TOKEN_SUBJECT);
        const res = await fetch(`${this.apiUrl}/internal/usage?token=${token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: batch }),
          // An API server that does not answer must not hold the operator's shutdown.
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
      } catch (err) {
        this.buffer.unshift(...batch);
        this.log.warn('usage report not sent; retrying', {
          events: batch.length,
          err: err instanceof Error ? err.message : String(err),
        });
        this.arm(this.timing.retryMs);
        return;
      }
    }
  }
}
