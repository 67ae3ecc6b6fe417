import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../../common/logger.js';
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

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Lets real I/O run, with the timers faked, until `done` holds or `ms` of real time pass:
 * polls on setImmediate and reads the real clock from `performance`.
 */
async function settle(done: () => boolean = () => false, ms = 300): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done() && performance.now() < deadline) await new Promise((r) => setImmediate(r));
}

describe('LogShipper', () => {
  it('sends a line within maxDelayMs of buffering it, with the lines that came meanwhile', async () => {
    // The shipper's clock and timers are faked, so its timing is exact under any load; the
    // send itself is real I/O, waited for in real time.
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask', 'performance'],
    });
    try {
      const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 150 });
      const pushedAt = Date.now();
      shipper.push(owner, line('first'));
      jest.advanceTimersByTime(50);
      shipper.push(owner, line('second'));
      // Timed from the first line, not pushed back by the second: nothing at 149 ms...
      jest.advanceTimersByTime(99);
      await settle();
      expect(received).toHaveLength(0);
      // ...and both lines at 150.
      jest.advanceTimersByTime(1);
      await settle(() => received.length > 0, 10_000);
      expect(received).toHaveLength(1);
      expect(received[0]?.messages).toEqual(['first', 'second']);
      expect(received[0]!.at - pushedAt).toBe(150);
      await shipper.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('sends a full batch at once', async () => {
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 60_000 });
    for (let i = 0; i < BATCH; i++) shipper.push(owner, line(`line ${i}`));
    await until(() => received.length > 0);
    expect(received[0]?.messages).toHaveLength(BATCH);
    await shipper.close();
  });

  it('retries a failed send retryMs later, keeping the lines and their order', async () => {
    answer = 503;
    const shipper = new LogShipper(apiUrl, 'secret', log, { maxDelayMs: 10, retryMs: 300 });
    const pushedAt = Date.now();
    shipper.push(owner, line('kept'));
    await new Promise((r) => setTimeout(r, 100));
    answer = 204;
    // A line that comes during the outage waits for the retry rather than sending at once.
    shipper.push(owner, line('after'));
    await until(() => received.length > 0);
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
    shipper.push(owner, line('first'));
    await until(() => answer === 503 && received.length === 0);
    await new Promise((r) => setTimeout(r, 50));
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
