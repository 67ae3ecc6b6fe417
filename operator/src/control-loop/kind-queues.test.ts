/** A work queue per kind: keys of one kind serialised, kinds side by side. */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../../common/logger.js';
import { concurrencyOf, KindQueues, kindOfKey } from './kind-queues.js';
import { waitFor, type ChangeSource } from '../../../test/harness/wait.js';

const log = createLogger('test', 'silent');
let queues: KindQueues | undefined;
afterEach(async () => {
  await queues?.stop();
  queues = undefined;
});

describe('kindOfKey and concurrencyOf', () => {
  it('reads the kind of a queue key', () => {
    expect(kindOfKey('Agent:ns/a')).toBe('Agent');
    expect(kindOfKey('no-kind')).toBe('');
  });

  it('gives each kind its own number of workers, or the default', () => {
    expect(concurrencyOf(3, 'Agent')).toBe(3);
    expect(concurrencyOf({ default: 2, Agent: 16 }, 'Agent')).toBe(16);
    expect(concurrencyOf({ default: 2, Agent: 16 }, 'Workspace')).toBe(2);
  });
});

describe('KindQueues', () => {
  it('refuses a key of a kind it has no queue for', () => {
    queues = new KindQueues(['Agent'], { logger: log });
    expect(() => queues!.add('Job:ns/a')).toThrow('no work queue for Job:ns/a');
  });

  it('runs many keys of a kind in parallel, never one key twice at once, each run after its latest add', async () => {
    queues = new KindQueues(['Agent', 'Workspace'], { logger: log });
    const running = new Set<string>();
    let overlaps = 0;
    let peak = 0;
    /** Per key: the version each run saw, and the latest version added. */
    const seen = new Map<string, number[]>();
    const latest = new Map<string, number>();
    /** Runs ended so far, and a change source that fires as each ends. */
    let ended = 0;
    let runEnded = () => {};
    const ends: ChangeSource = (changed) => {
      runEnded = changed;
      return () => (runEnded = () => {});
    };
    queues.start(
      async (key) => {
        if (running.has(key)) overlaps += 1;
        running.add(key);
        peak = Math.max(peak, [...running].filter((k) => kindOfKey(k) === 'Agent').length);
        const version = latest.get(key) ?? 0;
        // Runs take one to three turns of the event loop, so they end out of order.
        for (let turn = 0; turn <= version % 3; turn++) await new Promise((r) => setImmediate(r));
        seen.set(key, [...(seen.get(key) ?? []), version]);
        running.delete(key);
        ended += 1;
        runEnded();
      },
      { default: 1, Agent: 8 },
    );
    const keys = Array.from({ length: 40 }, (_, i) => `Agent:ns/a-${i}`);
    for (let version = 1; version <= 5; version++) {
      for (const key of keys) {
        latest.set(key, version);
        queues.add(key);
      }
      queues.add('Workspace:ns/w');
      // The next version comes while this one's runs are under way: a wave of them has ended.
      const wave = ended + 8;
      await waitFor(`8 more runs to end after version ${version} was added`, () => ended >= wave, {
        timeoutMs: 10_000,
        wakeOn: ends,
        lastSeen: () => ended,
      });
    }
    await waitFor(
      'a run of every key at version 5, and none running',
      () => keys.every((key) => seen.get(key)?.at(-1) === 5) && running.size === 0,
      { timeoutMs: 10_000, wakeOn: ends, lastSeen: () => ({ ended, running: [...running] }) },
    );

    expect(overlaps).toBe(0);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(8);
    for (const key of keys) {
      const versions = seen.get(key)!;
      // In order, and the last run saw the last add.
      expect([...versions].sort((a, b) => a - b)).toEqual(versions);
      expect(versions.at(-1)).toBe(5);
    }
    expect(seen.get('Workspace:ns/w')?.length).toBeGreaterThan(0);
  });

  it('reports ready keys and delayed runs across kinds', async () => {
    queues = new KindQueues(['Agent', 'Workspace'], { logger: log });
    queues.add('Agent:ns/a');
    queues.add('Workspace:ns/w');
    expect([...queues.readyKeys()]).toEqual(['Agent:ns/a', 'Workspace:ns/w']);
    expect(queues.delayedCount).toBe(0);
    expect(queues.retries('Agent:ns/a')).toBe(0);
  });
});
