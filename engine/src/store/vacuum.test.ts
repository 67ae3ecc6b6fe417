import { afterEach, expect, test } from '@jest/globals';
import { parseFilter } from '../filter/parse.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';
import { seededRandom } from '../../../common/seeded-random.js';
import { count, scroll } from '../search/scroll.js';
import { search } from '../search/search.js';
import { Collection } from './collection.js';
import { newCollectionConfig } from './collection-config.js';
import type { PointWrite } from './operations.js';
import { DELETED_THRESHOLD, VACUUM_MIN_VECTOR_NUMBER, vacuum } from './vacuum.js';

const DIM = 16;
const random = seededRandom(42);
const randomVector = () => Float32Array.from({ length: DIM }, () => random() * 2 - 1);

const open: Collection[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));

/** A collection that builds its graph once `threshold` points are live, never when idle. */
function collection(threshold = Infinity): Collection {
  const c = new Collection(newCollectionConfig('c', DIM, 'Euclid'), {
    threshold,
    idleMs: 600_000,
    onError: (error) => {
      throw error;
    },
  });
  open.push(c);
  return c;
}

let seq = 0;
/** Upserts points in one operation. */
function upsert(c: Collection, points: PointWrite[]): void {
  c.apply({ type: 'upsert', points }, ++seq);
}

function points(ids: number[], payload: (id: number) => JsonObject | null = () => null) {
  return ids.map((id) => ({ id, vector: randomVector(), payload: payload(id) }));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function idsOf(c: Collection, slots: number[]): PointId[] {
  return slots.map((slot) => c.points.ids[slot]!);
}

/** The nearest point to a vector, through the graph unless `exact`. */
function nearest(c: Collection, vector: Float32Array, exact = false): PointId | undefined {
  const [hit] = search(c, { vector, limit: 1, offset: 0, exact });
  return hit && c.points.ids[hit.slot];
}

test('overwriting the same points keeps the slots and memory bounded, and every point intact', () => {
  const N = 3000;
  const c = collection();
  c.apply({ type: 'create_index', field: 'group', schema: { type: 'keyword' } }, ++seq);
  const latest = new Map<number, PointWrite>();
  let most = 0;
  let memoryAfterFirstRound = 0;
  for (let round = 0; round < 20; round++) {
    for (let from = 0; from < N; from += 500) {
      const batch = points(range(from, from + 500), (id) => ({ group: `g${(id + round) % 5}` }));
      upsert(c, batch);
      for (const p of batch) latest.set(p.id as number, p);
      most = Math.max(most, c.points.slotCount);
    }
    if (round === 0) memoryAfterFirstRound = c.points.vectors.memory.buffer.byteLength;
  }
  expect(most).toBeLessThanOrEqual(N / (1 - DELETED_THRESHOLD) + VACUUM_MIN_VECTOR_NUMBER);
  expect(c.points.vectors.memory.buffer.byteLength).toBe(memoryAfterFirstRound);
  expect(c.points.liveCount).toBe(N);
  for (const p of latest.values()) {
    const slot = c.points.slotOf(p.id)!;
    expect(c.points.vectors.get(slot)).toEqual(p.vector);
    expect(c.points.payloads[slot]).toEqual(p.payload);
  }

  const fresh = collection();
  fresh.apply({ type: 'create_index', field: 'group', schema: { type: 'keyword' } }, ++seq);
  upsert(fresh, [...latest.values()]);
  const filter = parseFilter({ must: [{ key: 'group', match: { value: 'g2' } }] })!;
  for (let q = 0; q < 10; q++) {
    const vector = randomVector();
    for (const query of [{ vector }, { vector, filter }]) {
      const ask = { ...query, limit: 10, offset: 0, exact: true };
      const hits = (of: Collection) =>
        search(of, ask).map((h) => ({ id: of.points.ids[h.slot], score: h.score }));
      expect(hits(c)).toEqual(hits(fresh));
    }
  }
  const scrolled = (of: Collection) => idsOf(of, scroll(of, { filter, limit: N }).slots);
  expect(scrolled(c)).toEqual(scrolled(fresh));
  expect(scrolled(c)).toHaveLength(N / 5);
  expect(count(c, filter)).toBe(N / 5);
});

test('deleting points vacuums their slots', () => {
  const c = collection();
  c.apply({ type: 'create_index', field: 'n', schema: { type: 'integer' } }, ++seq);
  upsert(
    c,
    points(range(0, 2000), (id) => ({ n: id })),
  );
  c.apply(
    { type: 'delete_points', selector: { filter: { must: [{ key: 'n', range: { lt: 1200 } }] } } },
    ++seq,
  );
  expect(c.points.slotCount).toBe(800);
  expect(idsOf(c, scroll(c, { limit: 5 }).slots)).toEqual(range(1200, 1205));
  const filter = parseFilter({ must: [{ key: 'n', range: { gte: 1990 } }] })!;
  expect(idsOf(c, scroll(c, { filter, limit: 100 }).slots)).toEqual(range(1990, 2000));
});

test('a vacuum moves graph nodes, keeps dead ones, and the graph finds every point', async () => {
  const N = 2000;
  const c = collection(N);
  const latest = new Map<number, Float32Array>();
  const write = (ids: number[]) => {
    const batch = points(ids);
    upsert(c, batch);
    for (const p of batch) latest.set(p.id as number, p.vector);
  };
  const everyPointFound = () => {
    for (const [id, vector] of latest) expect(nearest(c, vector)).toBe(id);
  };
  write(range(0, N));
  await c.vectorIndex.settled();
  expect(c.vectorIndex.indexedCount).toBe(N);

  // Half the graph's nodes die: the index rebuilds from the live half, then a vacuum moves it down.
  write(range(0, 1000));
  expect(c.vectorIndex.isBuilding).toBe(true);
  await c.vectorIndex.settled();
  expect(c.points.slotCount).toBe(N);
  expect(c.points.slotOf(1000)).toBe(0);
  expect(c.vectorIndex.indexedCount).toBe(N);
  expect(c.vectorIndex.ready).toBe(true);
  // No tail is left: every hit comes through the remapped graph.
  everyPointFound();

  // Fewer dead nodes than a rebuild needs; overwritten tails are vacuumed around them.
  for (let round = 0; round < 5; round++) write(range(0, 300));
  expect(c.vectorIndex.isBuilding).toBe(false);
  expect(c.vectorIndex.deadNodes).toBe(300);
  expect(c.points.slotCount).toBe(N + 300);
  everyPointFound();
});

test('while a build runs a vacuum reclaims only slots written since it began, and the rest when it ends', async () => {
  const N = 2000;
  const c = collection(N);
  const latest = new Map<number, Float32Array>();
  for (let round = 0; round < 3; round++) {
    const batch = points(range(0, N));
    upsert(c, batch);
    for (const p of batch) latest.set(p.id as number, p.vector);
  }
  // The first write started a build over slots 0..N; the second retired them all, which the
  // build still reads; the third retired the second's, which a vacuum reclaimed at once.
  expect(c.vectorIndex.isBuilding).toBe(true);
  expect(c.vectorIndex.frozenBelow).toBe(N);
  expect(c.points.slotCount).toBe(2 * N);
  expect(c.points.slotOf(0)).toBe(N);
  vacuum(c); // Nothing more to reclaim: the frozen slots stay where the build reads them.
  expect(c.points.slotCount).toBe(2 * N);

  await c.vectorIndex.settled();
  expect(c.points.slotCount).toBe(N);
  expect(c.vectorIndex.indexedCount).toBe(N);
  for (const [id, vector] of latest) expect(nearest(c, vector)).toBe(id);
});
