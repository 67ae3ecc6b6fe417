/**
 * One work queue per kind, each with workers of its own: a burst of one kind (a
 * thousand Agents) never waits behind another's slow reconciles (builds), and each
 * kind's concurrency fits its work. Within a queue keys stay serialised and
 * de-duplicated (work-queue.ts); a key (`Kind:namespace/name`) belongs to the queue of
 * its kind, so one object is never reconciled by two workers at once.
 */
import {
  WorkQueue,
  type WorkHandler,
  type WorkQueueOptions,
} from '../../../common/kube/work-queue.js';

/** The kind a queue key (`Kind:namespace/name`) is for. */
export function kindOfKey(key: string): string {
  const colon = key.indexOf(':');
  return colon > 0 ? key.slice(0, colon) : '';
}

/** Workers per kind: a number for every kind, or per kind with a default. */
export type KindConcurrency = number | { default: number; [kind: string]: number };

/** How many workers `kind` gets from `concurrency`. */
export function concurrencyOf(concurrency: KindConcurrency, kind: string): number {
  return typeof concurrency === 'number' ? concurrency : (concurrency[kind] ?? concurrency.default);
}

/** A work queue per kind, behind the one interface of a {@link WorkQueue}. */
export class KindQueues {
  private readonly queues = new Map<string, WorkQueue>();

  constructor(
    readonly kinds: readonly string[],
    options: WorkQueueOptions = {},
  ) {
    for (const kind of kinds) this.queues.set(kind, new WorkQueue({ ...options, name: kind }));
  }

  /** The queue of `key`'s kind; throws for a kind no queue was made for. */
  private queueOf(key: string): WorkQueue {
    const queue = this.queues.get(kindOfKey(key));
    if (!queue) throw new Error(`no work queue for ${key}`);
    return queue;
  }

  /** Makes `key` ready to run now in its kind's queue. */
  add(key: string): void {
    this.queueOf(key).add(key);
  }

  /** Runs `key` now; resolves once a run that began after the call has ended (see WorkQueue). */
  runNow(key: string): Promise<void> {
    return this.queueOf(key).runNow(key);
  }

  /** Consecutive failures of `key` since its last success. */
  retries(key: string): number {
    return this.queueOf(key).retries(key);
  }

  /** The keys ready to run, kind after kind (for metrics). */
  *readyKeys(): IterableIterator<string> {
    for (const queue of this.queues.values()) yield* queue.readyKeys();
  }

  /** Keys waiting for a delayed run, in every queue. */
  get delayedCount(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.delayedCount;
    return n;
  }

  /** Starts each kind's workers (`concurrency` of them) running `handler`. */
  start(handler: WorkHandler, concurrency: KindConcurrency): void {
    for (const [kind, queue] of this.queues)
      queue.start(handler, { concurrency: concurrencyOf(concurrency, kind) });
  }

  /** Stops every queue, resolving once their handlers in flight have returned. */
  async stop(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.stop()));
  }
}
