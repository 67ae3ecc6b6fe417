import { afterAll, describe, expect, it } from '@jest/globals';
import type { Distance } from '../distance.js';
import { ScanHelper, scanHelper } from './scan-helper.js';
import type { ScanTask } from './scan-helper.js';
import { SCAN_CHUNK } from './scan-protocol.js';
import { VectorArena, helperOutput } from './vector-arena.js';
import { waitFor } from '../../../test/harness/wait.js';

const DIM = 64;
/** Enough 64-float slots (4.6 MB) that a scan asks the helper. */
const POINTS = 18_000;

function arenaOf(points: number, distance: Distance = 'Dot', seed = 1): VectorArena {
  const arena = new VectorArena(DIM, distance, { initialCapacity: 1024 });
  let s = seed;
  const vector = new Float32Array(DIM);
  for (let i = 0; i < points; i++) {
    for (let d = 0; d < DIM; d++) vector[d] = (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32 - 0.5;
    arena.push(vector);
  }
  return arena;
}

/** The similarities of slots `0 .. end - 1`, one chunk at a time on this thread. */
function alone(arena: VectorArena, q: number, end: number): Float32Array {
  const out = new Float32Array(end);
  for (let from = 0; from < end; from += SCAN_CHUNK)
    out.set(arena.scanScores(q, from, Math.min(SCAN_CHUNK, end - from)), from);
  return out;
}

/** What scanAll hands over, and the runs it handed it in. */
function scanned(arena: VectorArena, q: number, end: number) {
  const out = new Float32Array(end);
  const runs: number[] = [];
  arena.scanAll(q, end, (scores, from) => {
    runs.push(from, scores.length);
    out.set(scores, from);
  });
  return { out, runs };
}

/**
 * The first slot whose scores differ (or the shorter length), -1 when they agree: jest's
 * diff of two 100,000-float arrays would take minutes to print.
 */
function firstDifference(a: Float32Array | undefined, b: Float32Array): number {
  if (!a) return 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (!Object.is(a[i], b[i])) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}

/**
 * Waits until `check` gives a value, checked again each time `helper` says its state changed
 * (ready, memories held, a part done); fails after 30 s naming `what`.
 */
function until<T>(
  what: string,
  check: () => T | false | undefined,
  helper: ScanHelper = scanHelper(),
): Promise<T> {
  return waitFor(what, check, {
    timeoutMs: 30_000,
    wakeOn: (changed) => helper.onChange(changed),
    lastSeen: () => ({ ready: helper.ready, memoriesHeld: helper.memoriesHeld }),
  });
}

/**
 * Scans until the helper scored a part (it may start, or answer late, under load), checking
 * every scan's scores against `expected`; returns the scan it helped with. A scan it did not
 * help is tried again once the helper's state changes.
 */
function helpedScan(arena: VectorArena, q: number, end: number, expected: Float32Array) {
  return until('a scan the helper scored a part of', () => {
    const before = scanHelper().finished;
    const scan = scanned(arena, q, end);
    expect(contiguous(scan.runs, end)).toBe(true);
    expect(firstDifference(scan.out, expected)).toBe(-1);
    return scanHelper().finished === before + 1 && scan;
  });
}

/** Whether the runs cover `0 .. end - 1` in order, each starting where the last ended. */
function contiguous(runs: number[], end: number): boolean {
  let next = 0;
  for (let i = 0; i < runs.length; i += 2) {
    if (runs[i] !== next) return false;
    next += runs[i + 1]!;
  }
  return next === end;
}

afterAll(async () => {
  await scanHelper().stop();
});

describe('VectorArena.scanAll with the scan helper', () => {
  it('hands over every slot in order while the helper starts, then with it, the same scores', async () => {
    for (const distance of ['Dot', 'Euclid', 'Manhattan'] as const) {
      const arena = arenaOf(POINTS, distance);
      const q = arena.placeQuery(arena.get(7));
      const expected = alone(arena, q, POINTS);
      const first = scanned(arena, q, POINTS);
      expect(contiguous(first.runs, POINTS)).toBe(true);
      expect(firstDifference(first.out, expected)).toBe(-1);
      const helped = await helpedScan(arena, q, POINTS, expected);
      expect(contiguous(helped.runs, POINTS)).toBe(true);
      // The helper's part comes as one run, after the calling thread's chunks.
      expect(helped.runs.at(-2)).toBeGreaterThan(0);
      arena.close();
    }
  }, 60_000);

  it('reads slots appended after the memory grew', async () => {
    const arena = arenaOf(POINTS);
    const q = arena.placeQuery(arena.get(3));
    scanned(arena, q, POINTS);
    await until('the helper ready', () => scanHelper().ready);
    const more = arenaOf(POINTS, 'Dot', 99);
    for (let slot = 0; slot < POINTS; slot++) arena.push(more.get(slot));
    const end = 2 * POINTS;
    const { out } = await helpedScan(arena, q, end, alone(arena, q, end));
    expect(out[end - 1]).not.toBe(0);
    arena.close();
    more.close();
  }, 60_000);

  it('keeps a short scan on the calling thread', async () => {
    const arena = arenaOf(2 * SCAN_CHUNK);
    await until('the helper ready', () => scanHelper().ready);
    const before = scanHelper().finished;
    const q = arena.placeQuery(arena.get(0));
    expect(
      firstDifference(scanned(arena, q, 2 * SCAN_CHUNK).out, alone(arena, q, 2 * SCAN_CHUNK)),
    ).toBe(-1);
    expect(scanHelper().finished).toBe(before);
  });

  it('lets go of a closed arena', async () => {
    const warm = arenaOf(POINTS);
    scanned(warm, warm.placeQuery(warm.get(0)), POINTS);
    await until('the helper ready', () => scanHelper().ready);
    warm.close();
    // Every arena the tests above scanned is closed: the helper ends up holding none.
    await until('the helper holding no memory', () => scanHelper().memoriesHeld === 0);
    const a = arenaOf(POINTS);
    const b = arenaOf(POINTS, 'Dot', 5);
    // A scan while the helper is busy with a late part posts nothing: scan until both posted.
    await until('the helper holding both memories', () => {
      scanned(a, a.placeQuery(a.get(0)), POINTS);
      scanned(b, b.placeQuery(b.get(0)), POINTS);
      return scanHelper().memoriesHeld === 2;
    });
    a.close();
    await until('the helper holding one memory', () => scanHelper().memoriesHeld === 1);
    b.close();
    await until('the helper holding no memory', () => scanHelper().memoriesHeld === 0);
  }, 60_000);
});

/** A task scoring every slot of `arena` against the vector of its slot `query`. */
function wholeScan(arena: VectorArena, query: number): ScanTask {
  return {
    memory: arena.memory,
    kernel: 'scan_dot',
    query: arena.placeQuery(arena.get(query)),
    base: arena.pointer(0),
    from: 0,
    count: arena.length,
    dim: DIM,
    out: helperOutput(DIM),
  };
}

/** A scan of 131,072 slots, long enough to still be running right after it is posted. */
function longScan(query: number) {
  const slots = 32 * SCAN_CHUNK;
  const arena = arenaOf(slots);
  const task = wholeScan(arena, query);
  return { slots, arena, task, expected: alone(arena, task.query, slots) };
}

/** A helper of its own, started by its first task (which it does not take) and ready. */
async function startedHelper(task: ScanTask): Promise<ScanHelper> {
  const helper = new ScanHelper();
  expect(helper.offload(task)).toBe(false);
  await until('the new helper ready', () => helper.ready, helper);
  return helper;
}

describe('ScanHelper', () => {
  it('answers undefined for a task it fails, and takes no task after', async () => {
    const arena = arenaOf(SCAN_CHUNK);
    const task = wholeScan(arena, 0);
    const helper = await startedHelper(task);
    expect(helper.offload(task)).toBe(true);
    expect(
      firstDifference(helper.collect(SCAN_CHUNK, 10_000), alone(arena, task.query, SCAN_CHUNK)),
    ).toBe(-1);
    // A kernel the helper does not have fails the task.
    expect(helper.offload({ ...task, kernel: 'scan_cosine' as ScanTask['kernel'] })).toBe(true);
    expect(helper.collect(SCAN_CHUNK, 10_000)).toBeUndefined();
    expect(helper.ready).toBe(false);
    expect(helper.offload(task)).toBe(false);
    await helper.stop();
  }, 60_000);

  it('answers undefined when the part is late, takes no task while busy, then takes one again', async () => {
    const { slots, task, expected } = longScan(1);
    const helper = await startedHelper(task);
    // Without patience the part is late, and the helper busy right after, unless this thread
    // was held up longer than the helper took (a loaded machine): then it tries again.
    let lateAndBusy = false;
    for (let attempt = 0; attempt < 50 && !lateAndBusy; attempt++) {
      await until('the helper taking a part', () => helper.offload(task), helper);
      const got = helper.collect(slots, 0);
      if (got) expect(firstDifference(got, expected)).toBe(-1);
      else if (helper.offload(task))
        expect(firstDifference(helper.collect(slots, 10_000), expected)).toBe(-1);
      else lateAndBusy = true;
    }
    expect(lateAndBusy).toBe(true);
    // It takes a part again once done with the late one.
    await until('the helper taking a part after the late one', () => helper.offload(task), helper);
    expect(firstDifference(helper.collect(slots, 10_000), expected)).toBe(-1);
    expect(helper.ready).toBe(true);
    await helper.stop();
  }, 60_000);

  it('starts again after a stop, even one that came while it was on a part', async () => {
    const { slots, task, expected } = longScan(2);
    const helper = await startedHelper(task);
    expect(helper.offload(task)).toBe(true);
    helper.collect(slots, 0);
    await helper.stop();
    expect(helper.ready).toBe(false);
    expect(helper.offload(task)).toBe(false);
    await until('the restarted helper ready', () => helper.ready, helper);
    expect(helper.offload(task)).toBe(true);
    expect(firstDifference(helper.collect(slots, 10_000), expected)).toBe(-1);
    await helper.stop();
  }, 60_000);
});
