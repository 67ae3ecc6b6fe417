/**
 * The work queue's guarantees, with real timers and short delays (jest's clock where a test
 * must see that a timer did nothing); no cluster needed.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createLogger } from '../logger.js';
import { WorkQueue, type ReconcileResult, type WorkQueueOptions } from './work-queue.js';
import { waitFor } from '../../test/harness/wait.js';

const queues: WorkQueue[] = [];

/** A queue with a silent logger, stopped after each test. */
function newQueue(options: WorkQueueOptions = {}): WorkQueue {
  const queue = new WorkQueue({ logger: createLogger('test', 'silent'), ...options });
  queues.push(queue);
  return queue;
}

afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
});

/** A promise with its resolve function, to hold handlers mid-run. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Handlers call this as a run starts or ends; it wakes {@link until}. */
let changed = () => {};

/** Waits until `check` holds, checked again whenever a handler calls `changed`; fails after `ms`. */
function until(what: string, check: () => boolean, ms = 2000): Promise<true> {
  return waitFor(what, check, {
    timeoutMs: ms,
    wakeOn: (wake) => {
      changed = wake;
      return () => (changed = () => {});
    },
  });
}

/** A turn of the event loop: whatever promise chains were due (no timer) have run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('processes each added key once and then is idle', async () => {
    const queue = newQueue();
    const seen: string[] = [];
    queue.add('ns/a');
    queue.add('ns/b');
    queue.start(async (key) => {
      seen.push(key);
    });
    await queue.idle();
    expect(seen).toEqual(['ns/a', 'ns/b']);
    expect(queue.length).toBe(0);
  });

  it('ignores adds of a key that is already queued', async () => {
    const queue = newQueue();
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) queue.add('ns/a');
    queue.add('ns/b');
    expect(queue.length).toBe(2);
    queue.start(async (key) => {
      seen.push(key);
    });
    await queue.idle();
    expect(seen).toEqual(['ns/a', 'ns/b']);
  });

  it('never runs one key on two workers, and re-runs a key added mid-run exactly once', async () => {
    const queue = newQueue();
    const hold = gate();
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    queue.start(
      async (key) => {
        // Other keys only mark a point in the queue's order.
        if (key !== 'ns/a') return;
        runs += 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        changed();
        if (runs === 1) await hold.promise;
        running -= 1;
      },
      { concurrency: 4 },
    );
    queue.add('ns/a');
    await until('the first run of ns/a', () => runs === 1);
    for (let i = 0; i < 10; i++) queue.add('ns/a');
    // A key added after them has run: a queued ns/a would have started before it.
    await queue.runNow('ns/b');
    // Still one run: the adds only marked the key dirty.
    expect(runs).toBe(1);
    expect(queue.length).toBe(0);
    hold.open();
    await queue.idle();
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });

  it('runs different keys concurrently up to the concurrency limit', async () => {
    const queue = newQueue();
    const hold = gate();
    const started: string[] = [];
    let running = 0;
    let maxRunning = 0;
    queue.start(
      async (key) => {
        started.push(key);
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        changed();
        await hold.promise;
        running -= 1;
      },
      { concurrency: 3 },
    );
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) queue.add(`ns/${key}`);
    await until('three runs started', () => started.length === 3);
    // No fourth: every worker is held, and the other three keys wait, ready.
    await turn();
    expect(started).toEqual(['ns/a', 'ns/b', 'ns/c']);
    expect(queue.length).toBe(3);
    hold.open();
    await queue.idle();
    expect(started).toHaveLength(6);
    expect(maxRunning).toBe(3);
  });

  it('retries a failing key with growing delays, then forgets the failures on success', async () => {
    const queue = newQueue({ backoff: { baseDelayMs: 20, jitter: 0 } });
    const times: number[] = [];
    const retriesSeen: number[] = [];
    queue.start(async (key) => {
      times.push(performance.now());
      retriesSeen.push(queue.retries(key));
      if (times.length <= 4) throw new Error('not yet');
    });
    queue.add('ns/a');
    await queue.idle();
    expect(times).toHaveLength(5);
    expect(retriesSeen).toEqual([0, 1, 2, 3, 4]);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // Timers never fire early (allow 2 ms of clock rounding), so each gap is at least the
    // doubled delay; the upper bound is loose for loaded machines.
    [20, 40, 80, 160].forEach((expected, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(expected - 2);
      expect(gaps[i]).toBeLessThan(expected + 250);
    });
    expect(queue.retries('ns/a')).toBe(0);
  });

  it('starts the backoff over after a success', async () => {
    const queue = newQueue({ backoff: { baseDelayMs: 30, jitter: 0 } });
    const outcomes = ['fail', 'fail', 'ok', 'fail', 'ok'];
    const retriesSeen: number[] = [];
    const times: number[] = [];
    queue.start(async (key) => {
      retriesSeen.push(queue.retries(key));
      times.push(performance.now());
      if (outcomes[times.length - 1] === 'fail') throw new Error('boom');
    });
    queue.add('ns/a');
    // Two failures, then the success: nothing is left to run.
    await queue.idle();
    expect(times).toHaveLength(3);
    queue.add('ns/a');
    await queue.idle();
    expect(times).toHaveLength(5);
    // The delay is a function of the failure count (see backoffDelay), which the success
    // reset: the failure after it waited the base delay again, not 120 ms.
    expect(retriesSeen).toEqual([0, 1, 2, 0, 1]);
    expect((times[4] as number) - (times[3] as number)).toBeGreaterThanOrEqual(28);
    expect(queue.retries('ns/a')).toBe(0);
  });

  it('counts a handler that throws synchronously as a failure', async () => {
    const queue = newQueue({ backoff: { baseDelayMs: 5, jitter: 0 } });
    let runs = 0;
    queue.start(((): Promise<ReconcileResult> => {
      runs += 1;
      if (runs === 1) throw new Error('sync throw');
      return Promise.resolve();
    }) as (key: string) => Promise<ReconcileResult>);
    queue.add('ns/a');
    await queue.idle();
    expect(runs).toBe(2);
  });

  it('re-runs a dirty key at once even when its run failed', async () => {
    const queue = newQueue({ backoff: { baseDelayMs: 10_000, jitter: 0 } });
    const hold = gate();
    let runs = 0;
    queue.start(async () => {
      runs += 1;
      changed();
      if (runs === 1) {
        await hold.promise;
        throw new Error('failed on the old state');
      }
    });
    queue.add('ns/a');
    await until('the first run', () => runs === 1);
    queue.add('ns/a');
    hold.open();
    // No 10 s backoff: the change that arrived mid-run is looked at now.
    await until('the second run, at once rather than after the back-off', () => runs === 2, 1000);
    await queue.idle();
    expect(queue.retries('ns/a')).toBe(0);
  });

  it('runs a key again after requeueAfter', async () => {
    const queue = newQueue();
    const times: number[] = [];
    queue.start(async () => {
      times.push(performance.now());
      return times.length === 1 ? { requeueAfter: 50 } : {};
    });
    queue.add('ns/a');
    await queue.idle();
    expect(times).toHaveLength(2);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(48);
  });

  it('lets a later add run a requeued key sooner, without an extra run at the requeue time', async () => {
    const queue = newQueue();
    let runs = 0;
    queue.start(async (key) => {
      if (key !== 'ns/a') return;
      runs += 1;
      return runs === 1 ? { requeueAfter: 60_000 } : {};
    });
    queue.add('ns/a');
    // A key added after it has run (one worker): the first run has ended and left its requeue.
    await queue.runNow('ns/b');
    expect(runs).toBe(1);
    expect(queue.delayedCount).toBe(1);
    queue.add('ns/a');
    // idle() would wait a minute if the delayed run were still pending.
    await queue.idle();
    expect(runs).toBe(2);
  });

  it('keeps the earlier of two delayed runs of one key', async () => {
    const queue = newQueue();
    const times: number[] = [];
    const startedAt = performance.now();
    queue.start(async () => {
      times.push(performance.now() - startedAt);
    });
    queue.addAfter('ns/a', 60_000);
    queue.addAfter('ns/a', 30);
    queue.addAfter('ns/a', 5_000);
    await queue.idle();
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThanOrEqual(28);
    // The 30 ms run, not the 5 s one: the bound leaves a loaded machine seconds of slack.
    expect(times[0]).toBeLessThan(4000);
  });

  it('waits for in-flight handlers on stop and ignores everything after', async () => {
    // The queue's timers are jest's (keeping pace with real time until told to jump): the
    // delayed run and the retry are jumped past, not waited for.
    jest.useFakeTimers({
      advanceTimers: true,
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'],
    });
    try {
      const queue = newQueue({ backoff: { baseDelayMs: 5, jitter: 0 } });
      const hold = gate();
      const seen: string[] = [];
      let finished = false;
      queue.start(async (key) => {
        seen.push(key);
        changed();
        if (key === 'ns/slow') {
          await hold.promise;
          finished = true;
          throw new Error('would be retried');
        }
      });
      queue.add('ns/slow');
      await until('the run of ns/slow', () => seen.length === 1);
      queue.add('ns/queued');
      queue.addAfter('ns/delayed', 10);
      const stopped = queue.stop();
      let stopResolved = false;
      void stopped.then(() => (stopResolved = true));
      // Only the handler in flight keeps stop from resolving.
      await turn();
      expect(stopResolved).toBe(false);
      hold.open();
      await stopped;
      expect(finished).toBe(true);
      queue.add('ns/late');
      // Past the delayed run's time and the failed run's retry: neither comes.
      await jest.advanceTimersByTimeAsync(30);
      expect(seen).toEqual(['ns/slow']);
      expect(queue.length).toBe(0);
      await queue.idle();
    } finally {
      jest.useRealTimers();
    }
  });

  it('runNow resolves after a run that began after the call, not after the run in flight', async () => {
    const queue = newQueue();
    const holds = [gate(), gate()];
    let started = 0;
    queue.start(async () => {
      const hold = holds[started];
      started += 1;
      changed();
      await hold?.promise;
    });
    queue.add('ns/a');
    await until('the first run', () => started === 1);
    let ran = false;
    const reconciled = queue.runNow('ns/a').then(() => (ran = true));
    // The run in flight began before the call: its end does not count.
    holds[0].open();
    await until('the second run', () => started === 2);
    // What the first run's end set off has happened; the second run is held.
    await turn();
    expect(ran).toBe(false);
    holds[1].open();
    await reconciled;
    expect(started).toBe(2);
  });

  it('runNow resolves after a failed run too, and at once on a stopped queue', async () => {
    const queue = newQueue({ backoff: { baseDelayMs: 60_000, jitter: 0 } });
    let runs = 0;
    queue.start(async () => {
      runs += 1;
      throw new Error('cannot');
    });
    await queue.runNow('ns/b');
    expect(runs).toBe(1);
    await queue.stop();
    await queue.runNow('ns/b');
    expect(runs).toBe(1);
  });
});
