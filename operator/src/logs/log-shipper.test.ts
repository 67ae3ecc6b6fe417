import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  jest,
} from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { clearTimeout as realClearTimeout, setTimeout as realSetTimeout } from 'node:timers';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../common/logger.js';
import { BATCH, LogShipper, MAX_BUFFERED } from './log-shipper.js';

/** What the ingestion route received: one entry per request, with its time. */
let received: Array<{ at: number; messages: string[] }> = [];
/** Answers the next requests with this status. */
let answer = 204;
let server: Server;
let apiUrl: string;

beforeAll(async () => {
  // Stands in for the ingestion route: only what the shipper sends, and when, is looked at.
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (answer < 300) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          entries: Array<{ message: string }>;
        };
        received.push({ at: Date.now(), messages: body.entries.map((e) => e.message) });
      }
      res.statusCode = answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

beforeEach(() => {
  received = [];
  answer = 204;
});

const owner = { agentId: 'a1', accountId: 'acct', environment: 'live' };
const log = createLogger('test', 'silent');
const line = (message: string) => ({ deployment_id: 'd1', stream: 'stdout' as const, message });

/**
 * `promise`, or a failure naming `what` once `ms` of real time pass without it settling (the
 * shipper's clock is jest's, so the deadline runs on node:timers, which jest leaves real).
 */
async function within<T>(what: string, promise: Promise<T>, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = realSetTimeout(
          () => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)),
          ms,
        );
      }),
    ]);
  } finally {
    realClearTimeout(timer);
  }
}

/** Counts the shipper's flushes (every send goes through one) and hands out each one's promise. */
function flushesOf(shipper: LogShipper) {
  const spy = jest.spyOn(shipper, 'flush');
  return {
    get count() {
      return spy.mock.calls.length;
    },
    /** The `n`th flush (from 1), once it has sent or failed. */
    done(n: number): Promise<void> {
      const result = spy.mock.results[n - 1];
      if (!result) throw new Error(`flush ${n} never started (${spy.mock.calls.length} did)`);
      return within(`flush ${n} to finish sending`, result.value as Promise<void>);
    },
  };
}

describe('LogShipper', () => {
  // The shipper's clock and timers are jest's, so its timing is exact under any load; each send
  // is real I/O, waited for through the promise of the flush that makes it.
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends a line within maxDelayMs of buffering it, with the lines that came meanwhile', async () => {
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 150 });
    const flushes = flushesOf(shipper);
    const pushedAt = Date.now();
    shipper.push(owner, line('first'));
    jest.advanceTimersByTime(50);
    shipper.push(owner, line('second'));
    // Timed from the first line, not pushed back by the second: nothing at 149 ms...
    jest.advanceTimersByTime(99);
    expect(flushes.count).toBe(0);
    expect(received).toHaveLength(0);
    // ...and both lines at 150.
    jest.advanceTimersByTime(1);
    await flushes.done(1);
    expect(received).toHaveLength(1);
    expect(received[0]?.messages).toEqual(['first', 'second']);
    expect(received[0]!.at - pushedAt).toBe(150);
    await shipper.close();
  });

  it('sends a full batch at once', async () => {
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 60_000 });
    const flushes = flushesOf(shipper);
    for (let i = 0; i < BATCH; i++) shipper.push(owner, line(`line ${i}`));
    // No time passes on the shipper's clock.
    jest.advanceTimersByTime(0);
    await flushes.done(1);
    expect(received[0]?.messages).toHaveLength(BATCH);
    await shipper.close();
  });

  it('retries a failed send retryMs later, keeping the lines and their order', async () => {
    answer = 503;
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 10, retryMs: 300 });
    const flushes = flushesOf(shipper);
    const pushedAt = Date.now();
    shipper.push(owner, line('kept'));
    jest.advanceTimersByTime(10);
    await flushes.done(1);
    answer = 204;
    // A line that comes during the outage waits for the retry rather than sending at once.
    shipper.push(owner, line('after'));
    jest.advanceTimersByTime(299);
    expect(flushes.count).toBe(1);
    jest.advanceTimersByTime(1);
    await flushes.done(2);
    expect(received[0]!.at - pushedAt).toBeGreaterThanOrEqual(300);
    expect(received).toHaveLength(1);
    expect(received[0]?.messages).toEqual(['kept', 'after']);
    await shipper.close();
  });

  it('sends what is left when closed, and arms nothing after', async () => {
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 60_000 });
    shipper.push(owner, line('last words'));
    await shipper.close();
    expect(received.map((r) => r.messages)).toEqual([['last words']]);
  });
  it('counts the lines it drops when the buffer is full, and says so first in the next batch', async () => {
    answer = 503;
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 10, retryMs: 60_000 });
    const flushes = flushesOf(shipper);
    shipper.push(owner, line('first'));
    // The send fails: the shipper backs off, and the lines that come meanwhile stay buffered.
    jest.advanceTimersByTime(10);
    await flushes.done(1);
    expect(received).toHaveLength(0);
    for (let i = 0; i < MAX_BUFFERED + 3; i++) shipper.push(owner, line(`line ${i}`));
    answer = 204;
    await shipper.close();
    const messages = received.flatMap((r) => r.messages);
    expect(messages[0]).toBe(
      '4 earlier line(s) were dropped: the agent printed faster than its logs could be stored',
    );
    expect(messages[1]).toBe('line 3');
    expect(messages.at(-1)).toBe(`line ${MAX_BUFFERED + 2}`);
    expect(messages).toHaveLength(MAX_BUFFERED + 1);
  }, 60_000);
});
