/**
 * Runs region-change operations to the end, in the API server. Every few
 * seconds (and at once when one is accepted) it looks for unfinished
 * operations, takes each it can with a lease (operation-store.ts), and drives
 * it through its phases ({@link RegionChangeSteps}), recording each in the
 * operation. A runner renews its lease while it works; one that stopped (the
 * process was killed or restarted) lets it run out, and the next runner to
 * look takes the operation over and repeats the phase it was in, whose steps
 * are idempotent.
 *
 * Failures: an {@link OperationFailure} before the draining phase (a version
 * that failed in the new region, a wait that timed out) rolls back at once,
 * and the operation ends `rolled_back` with the reason in `error`. Any other
 * error (an API or database out of reach) is retried with backoff; after
 * `maxAttempts` in a row it rolls back too. Draining is past the point of no
 * return (the new placement serves; the workspace has its new regions), so it
 * and rolling back are retried until they finish, and only after
 * `maxAttempts` in a row does the operation end `failed`, with the error.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../common/logger.js';
import {
  OperationFailure,
  type OperationPhase,
  type OperationState,
  type RegionOperationDoc,
} from './model.js';
import { LeaseLost, type Lease, type OperationStore } from './operation-store.js';

/** What a phase's steps get: the operation's writes, fenced by its lease, and a clock. */
export interface RunContext {
  /** Records `changes` on the operation; throws once another runner took it over, or this one stops. */
  save(changes: Partial<RegionOperationDoc>): Promise<void>;
  /** Waits `ms`; throws once the runner stops or loses the operation. */
  sleep(ms: number): Promise<void>;
  log: Logger;
}

/** The work of one kind of operation, a method per phase; each idempotent. */
export interface RegionChangeSteps {
  /** Puts everything where it is to be and waits until it is ready there. */
  place(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
  /** Copies what has data to copy (collections' points). */
  copy(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
  /** Commits the new placement and removes what is left in the regions given up. */
  drain(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
  /** Removes what the operation added; the old placement keeps serving. */
  rollBack(op: RegionOperationDoc, ctx: RunContext): Promise<void>;
}

/** Timings of a runner. */
export interface RunnerOptions {
  /** How long a lease lasts without renewal (default 30 s). */
  leaseMs?: number;
  /** How often unfinished operations are looked for (default 5 s). */
  pollMs?: number;
  /** Failed attempts of a phase in a row before giving up on it (default 5). */
  maxAttempts?: number;
  /** Backoff after the first failed attempt, doubling (default 1 s, at most 30 s). */
  backoffMs?: number;
}

/** The phase after `phase` when it completes, or the state the operation ends in. */
const NEXT: Record<OperationPhase, OperationPhase | OperationState> = {
  placing: 'copying',
  copying: 'draining',
  draining: 'succeeded',
  rolling_back: 'rolled_back',
};

/** Drives unfinished operations to their end. */
export class OperationRunner {
  /** This runner's name in leases: unique per process start. */
  readonly owner = `runner-${randomUUID()}`;
  private readonly running = new Map<string, AbortController>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private scanning: Promise<void> | null = null;
  private again = false;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;

  constructor(
    private readonly store: OperationStore,
    private readonly steps: RegionChangeSteps,
    private readonly log: Logger,
    private readonly options: RunnerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoffMs = options.backoffMs ?? 1_000;
  }

  /** Starts looking for operations (at once, then every `pollMs`). */
  start(): void {
    this.stopped = false;
    this.kick();
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 5_000);
    this.timer.unref();
  }

  /** Stops looking and abandons the operations in hand (their leases run out for the next runner). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
    await this.scanning;
    while (this.running.size > 0) await new Promise((r) => setTimeout(r, 20));
  }

  /** Looks for operations now (a new one was accepted); once more after a scan in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = this.scan()
      .catch((err: unknown) => {
        this.log.warn('operation scan failed', { err: String(err) });
      })
      .finally(() => {
        this.scanning = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Whether an operation is in this runner's hands. */
  holds(operationId: string): boolean {
    return this.running.has(operationId);
  }

  private async scan(): Promise<void> {
    for (const id of await this.store.unfinished()) {
      if (this.stopped || this.running.has(id)) continue;
      const lease = await this.store.claim(id, this.owner, this.leaseMs);
      if (!lease) continue;
      const controller = new AbortController();
      this.running.set(id, controller);
      void this.drive(lease, controller.signal).finally(() => this.running.delete(id));
    }
  }

  /** Runs one operation while the lease holds, renewing it. */
  private async drive(lease: Lease, signal: AbortSignal): Promise<void> {
    const log = this.log.child({ operation: lease.operationId });
    const abort = new AbortController();
    let lost = false;
    signal.addEventListener('abort', () => abort.abort(), { once: true });
    const heartbeat = setInterval(() => {
      this.store.renew(lease, this.leaseMs).catch((err: unknown) => {
        if (err instanceof LeaseLost) {
          log.warn('operation taken over by another runner');
          lost = true;
          abort.abort();
        }
      });
    }, this.leaseMs / 3);
    const ctx: RunContext = {
      // A runner stopping (or losing the lease) stops at the step's next save or wait.
      save: async (changes) => {
        if (abort.signal.aborted) throw abortError();
        await this.store.save(lease, changes);
      },
      sleep: (ms) => sleep(ms, abort.signal),
      log,
    };
    try {
      await this.phases(lease, ctx);
    } catch (err) {
      if (err instanceof LeaseLost) lost = true;
      else if (!abort.signal.aborted) log.error('operation runner stopped', { err: String(err) });
    } finally {
      clearInterval(heartbeat);
      // Stopped or done: the next runner need not wait for the lease to run out.
      if (!lost) await this.store.release(lease).catch(() => undefined);
    }
  }

  private async phases(lease: Lease, ctx: RunContext): Promise<void> {
    let op = await this.store.load(lease.operationId);
    if (!op) return;
    if (op.state === 'pending' || !op.phase) {
      const now = new Date();
      await ctx.save({ state: 'running', phase: op.phase ?? 'placing', startedAt: now });
      op = { ...op, state: 'running', phase: op.phase ?? 'placing', startedAt: now };
    }
    while (op.state === 'running' && op.phase) {
      const phase: OperationPhase = op.phase;
      let changes: Partial<RegionOperationDoc>;
      try {
        await this.run(phase, op, ctx);
        const next = NEXT[phase];
        changes =
          next === 'succeeded' || next === 'rolled_back'
            ? { state: next, finishedAt: new Date(), attempts: 0 }
            : { phase: next as OperationPhase, attempts: 0 };
      } catch (err) {
        if (err instanceof LeaseLost || isAbort(err)) throw err;
        changes = this.afterFailure(op, phase, err, ctx);
        if (changes.attempts !== undefined && changes.attempts > 0) {
          await ctx.save(changes);
          await ctx.sleep(Math.min(30_000, this.backoffMs * 2 ** (changes.attempts - 1)));
          op = (await this.store.load(op._id)) ?? op;
          continue;
        }
      }
      await ctx.save(changes);
      if (changes.state && changes.state !== 'running') {
        await this.store.unlock(op._id);
        ctx.log.info('operation finished', { state: changes.state, error: changes.error });
      }
      op = (await this.store.load(op._id)) ?? op;
    }
  }

  private async run(phase: OperationPhase, op: RegionOperationDoc, ctx: RunContext) {
    switch (phase) {
      case 'placing':
        return this.steps.place(op, ctx);
      case 'copying':
        return this.steps.copy(op, ctx);
      case 'draining':
        return this.steps.drain(op, ctx);
      case 'rolling_back':
        return this.steps.rollBack(op, ctx);
    }
  }

  /** What to record after `phase` failed with `err`: a retry, a rollback, or the end. */
  private afterFailure(
    op: RegionOperationDoc,
    phase: OperationPhase,
    err: unknown,
    ctx: RunContext,
  ): Partial<RegionOperationDoc> {
    const message = err instanceof Error ? err.message : String(err);
    const attempts = (op.attempts ?? 0) + 1;
    const forward = phase === 'placing' || phase === 'copying';
    ctx.log.warn('operation step failed', { phase, attempts, err: message });
    if (forward && (err instanceof OperationFailure || attempts >= this.maxAttempts)) {
      return { phase: 'rolling_back', error: message, attempts: 0 };
    }
    if (attempts < this.maxAttempts) return { attempts };
    return {
      state: 'failed',
      finishedAt: new Date(),
      attempts,
      error:
        phase === 'rolling_back' && op.error
          ? `${op.error}; rolling back failed: ${message}`
          : message,
    };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(): Error {
  const err = new Error('the operation runner stopped');
  err.name = 'AbortError';
  return err;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
