import { describe, expect, it } from '@jest/globals';
import { fireSchedule, retryDelayMs } from './schedule-firing.js';

const answer = (status: number, headers: Record<string, string> = {}) =>
  new Response(status === 202 ? '{}' : '{"error":"x"}', { status, headers });

describe('retryDelayMs', () => {
  it('waits what Retry-After says, capped at a minute', () => {
    expect(retryDelayMs('7', 0)).toBe(7000);
    expect(retryDelayMs('3600', 0)).toBe(60_000);
  });
  it('backs off 10 s, then 20 s, without Retry-After', () => {
    expect(retryDelayMs(null, 0)).toBe(10_000);
    expect(retryDelayMs(null, 1)).toBe(20_000);
  });
});

describe('fireSchedule', () => {
  it('tries again after a 429 and succeeds, reporting the refusal as not final', async () => {
    const answers = [answer(429, { 'retry-after': '2' }), answer(202)];
    const refusals: Array<[string, boolean]> = [];
    const waits: number[] = [];
    const outcome = await fireSchedule(
      async () => answers.shift() as Response,
      (reason, final) => refusals.push([reason, final]),
      async (ms) => void waits.push(ms),
    );
    expect(outcome).toEqual({ ok: true });
    expect(waits).toEqual([2000]);
    expect(refusals).toEqual([['scheduled run refused: 429 {"error":"x"}', false]]);
  });

  it('gives up after two retries, the last refusal final', async () => {
    let calls = 0;
    const refusals: boolean[] = [];
    const outcome = await fireSchedule(
      async () => {
        calls++;
        throw new Error('ECONNREFUSED');
      },
      (_reason, final) => refusals.push(final),
      async () => undefined,
    );
    expect(calls).toBe(3);
    expect(refusals).toEqual([false, false, true]);
    expect(outcome).toMatchObject({ ok: false, final: true });
  });

  it('retries a 409 (a firing in the instant its version becomes active) and succeeds', async () => {
    const answers = [answer(409), answer(202)];
    const waits: number[] = [];
    const outcome = await fireSchedule(
      async () => answers.shift() as Response,
      () => undefined,
      async (ms) => void waits.push(ms),
    );
    expect(outcome).toEqual({ ok: true });
    expect(waits).toEqual([10_000]);
  });
});
