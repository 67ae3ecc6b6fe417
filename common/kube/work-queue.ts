/**
 * A rate-limited, de-duplicating work queue of string keys, after client-go's
 * `workqueue`: the one place where reconciles are serialised per object.
 *
 * Keys (`namespace/name`, `Kind:namespace/name`) rather than objects go through it, so
 * that a burst of events for one object collapses into one reconcile of its latest
 * state, read fresh by the handler.
 */
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { createLogger, type Logger } from '../logger.js';

/** What a reconcile returns: nothing, or when to look at the key again. */
export type ReconcileResult = { requeueAfter?: number } | void;

/** Processes one key. Throwing means "retry with backoff". */
export type WorkHandler = (key: string) => Promise<ReconcileResult>;

/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Names the queue in logs (e.g. the kind it reconciles). */
  name?: string;
  backoff?: Partial<BackoffOptions>;
  /** Source of jitter; tests pin it. */
  random?: () => number;
  logger?: Logger;
}

/** Options of {@link WorkQueue.start}. */
export interface StartOptions {
  /** How many different keys may be processed at once (default 1). */
  concurrency?: number;
}

interface Delayed {
  due: number;
  timer: NodeJS.Timeout;
}

/**
 * The work queue. Guarantees:
 * - a key is never processed by two workers at once;
 * - adding a queued key is a no-op; adding a key being processed marks it dirty, and it
 *   runs exactly once more when the current run ends, however many adds came in;
 * - a handler that throws is retried after a per-key exponential backoff, reset by a
 *   success; `requeueAfter` schedules another run, which a later `add` brings forward.
 *
 * Whenever a key becomes ready to run, its pending delayed run is cancelled: the run
 * about to happen decides what comes next (its own `requeueAfter`, or a new backoff).
 * Keys may be added before `start`; they wait. `stop` is final.
 */
export class WorkQueue {
  /** Ready keys; a Set keeps insertion order, so it is the FIFO and the dedupe at once. */
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly failures = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  /** Callers of {@link runNow} waiting for a run of the key to start, then for it to end. */
  private readonly toStart = new Map<string, Array<() => void>>();
  private readonly toEnd = new Map<string, Array<() => void>>();
  private handler: WorkHandler | undefined;
  private concurrency = 1;
  private stopped = false;
  private readonly backoff: BackoffOptions;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly name: string;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'queue';
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? createLogger('operator');
  }

  /** Number of keys ready to run (not counting delayed or in-flight ones). */
  get length(): number {
    return this.queued.size;
  }

  /** The keys ready to run, in order (for metrics: a snapshot, not to be changed). */
  readyKeys(): IterableIterator<string> {
    return this.queued.values();
  }

  /** Number of keys waiting for a delayed run (a backoff or a `requeueAfter`). */
  get delayedCount(): number {
    return this.delayed.size;
  }

  /** Consecutive failures of `key` since its last success. */
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Resets the backoff of `key`; done after every successful run. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Makes `key` ready to run now (see the class comment for dedupe and dirty keys). */
  add(key: string): void {
    if (this.stopped) return;
    this.cancelDelayed(key);
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.pump();
  }

  /**
   * Makes `key` ready after `ms`. When the key already has a delayed run, the earlier of
   * the two wins; when it is already ready, this is a no-op (that run decides what's next).
   */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    const due = Date.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.due <= due) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { due, timer });
  }

  /** Starts `concurrency` workers running `handler` on ready keys. */
  start(handler: WorkHandler, options: StartOptions = {}): void {
    if (this.handler) throw new Error(`work queue ${this.name} already started`);
    if (this.stopped) throw new Error(`work queue ${this.name} is stopped`);
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
    }
    this.handler = handler;
    this.concurrency = concurrency;
    this.pump();
  }

  /**
   * Stops for good: drops ready and delayed keys, ignores later adds, and resolves once
   * the handlers in flight have returned (their results are discarded).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queued.clear();
    this.dirty.clear();
    for (const waiting of this.toStart.values()) waiting.forEach((resolve) => resolve());
    this.toStart.clear();
    await Promise.all([...this.inFlight]);
    this.notifyIdle();
  }

  /**
   * Resolves when nothing is ready, delayed or in flight. A key that requeues itself
   * periodically keeps the queue busy for ever; meant for tests and benchmarks.
   */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.notifyIdle();
    });
  }

  /**
   * Makes `key` ready now and resolves once a run of it that began after this call has ended,
   * whatever its outcome (at once when the queue is stopped). A test waits on this to see
   * what a reconcile of the object's present state does, or does not do, instead of a sleep.
   */
  runNow(key: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const ran = new Promise<void>((resolve) => {
      const waiting = this.toStart.get(key) ?? [];
      waiting.push(resolve);
      this.toStart.set(key, waiting);
    });
    this.add(key);
    return ran;
  }

  private cancelDelayed(key: string): void {
    const entry = this.delayed.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.delayed.delete(key);
  }

  private pump(): void {
    if (!this.handler || this.stopped) return;
    while (this.active.size < this.concurrency) {
      const next = this.queued.values().next();
      if (next.done) return;
      const key = next.value;
      this.queued.delete(key);
      this.active.add(key);
      const waiting = this.toStart.get(key);
      if (waiting) {
        this.toStart.delete(key);
        this.toEnd.set(key, [...(this.toEnd.get(key) ?? []), ...waiting]);
      }
      const run: Promise<void> = this.process(key).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  /** Runs the handler once for `key` and decides what happens next; never rejects. */
  private async process(key: string): Promise<void> {
    const handler = this.handler as WorkHandler;
    let result: ReconcileResult = undefined;
    let failure: { error: unknown } | undefined;
    try {
      result = await handler(key);
    } catch (error) {
      failure = { error };
    }
    this.active.delete(key);
    if (!this.stopped) this.settle(key, result, failure);
    const ended = this.toEnd.get(key);
    this.toEnd.delete(key);
    ended?.forEach((resolve) => resolve());
    this.pump();
    this.notifyIdle();
  }

  /** Schedules what follows a run: an immediate re-run if dirty, else backoff or requeue. */
  private settle(key: string, result: ReconcileResult, failure?: { error: unknown }): void {
    if (failure) this.failures.set(key, this.retries(key) + 1);
    else this.forget(key);
    if (this.dirty.delete(key)) {
      // The object changed while we ran: run its new state now, even after a failure (as
      // client-go does; the new state may well succeed). The failure count still grows.
      this.cancelDelayed(key);
      this.queued.add(key);
      return;
    }
    if (failure) {
      const retries = this.retries(key);
      const delay = backoffDelay(retries, this.backoff, this.random);
      this.logger.warn('reconcile failed; retrying with backoff', {
        queue: this.name,
        key,
        retries,
        delay_ms: delay,
        error: failure.error,
      });
      this.addAfter(key, delay);
      return;
    }
    const requeueAfter = result ? result.requeueAfter : undefined;
    if (typeof requeueAfter === 'number' && Number.isFinite(requeueAfter)) {
      this.addAfter(key, requeueAfter);
    }
  }

  private notifyIdle(): void {
    // A run counts as busy until its key leaves `active`; what follows that in `process`
    // is synchronous, so nothing can slip in between.
    if (this.queued.size > 0 || this.active.size > 0 || this.delayed.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
