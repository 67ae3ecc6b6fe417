import { expect, test } from '@jest/globals';
import { PointStore } from './point-store.js';
import { vectorsBase } from './vector-arena.js';

const DIM = 4;
// One 64 KiB page past the scratch space holds 4096 four-float vectors.
const PAGES = vectorsBase(DIM) / 65536 + 1;
const FITS = 65536 / (DIM * 4);

const vectorOf = (n: number) => Float32Array.from({ length: DIM }, (_, d) => n + d / 10);

test('the memory grows up to its page cap, then a put throws and keeps the point it would replace', () => {
  // 1000 does not divide 4096: the last growth takes what is left below the cap.
  const store = new PointStore(DIM, 'Euclid', { initialCapacity: 1000, maxPages: PAGES });
  for (let id = 0; id < FITS; id++) store.put(id, vectorOf(id), { n: id }, 1);
  expect(store.slotCount).toBe(FITS);

  expect(() => store.put(7, vectorOf(-1), { n: -1 }, 2)).toThrow(/exceed/);
  expect(() => store.put(FITS, vectorOf(-1), {}, 2)).toThrow(/exceed/);

  const slot = store.slotOf(7)!;
  expect(store.alive[slot]).toBe(1);
  expect(store.vectors.get(slot)).toEqual(vectorOf(7));
  expect(store.payloads[slot]).toEqual({ n: 7 });
  expect(store.versions[slot]).toBe(1);
  expect(store.slotOf(FITS)).toBeUndefined();
  expect(store.liveCount).toBe(FITS);
  expect(store.slotCount).toBe(FITS);
});

test('compact moves the kept slots down in order and the store forgets the others', () => {
  const store = new PointStore(DIM, 'Euclid', { initialCapacity: 4 });
  for (let id = 0; id < 6; id++) store.put(id, vectorOf(id), { n: id }, 1);
  store.put(1, vectorOf(11), { n: 11 }, 2); // slot 1 retired, slot 6 live
  store.put(3, vectorOf(13), { n: 13 }, 2); // slot 3 retired, slot 7 live
  store.remove(4); // slot 4 retired
  // Slot 3 is kept though retired, as a vacuum keeps the HNSW graph's dead nodes.
  const map = store.compact((slot) => store.alive[slot] === 1 || slot === 3);

  expect(Array.from(map)).toEqual([0, -1, 1, 2, -1, 3, 4, 5]);
  expect(store.slotCount).toBe(6);
  expect(store.vectors.get(2)).toEqual(vectorOf(3));
  expect(store.alive[2]).toBe(0);
  expect([0, 1, 2, 3, 4, 5].map((id) => store.slotOf(id))).toEqual([0, 4, 1, 5, undefined, 3]);
  for (const id of [0, 1, 2, 3, 5]) {
    const slot = store.slotOf(id)!;
    const n = id === 1 || id === 3 ? id + 10 : id;
    expect(store.vectors.get(slot)).toEqual(vectorOf(n));
    expect(store.payloads[slot]).toEqual({ n });
  }
  expect(Array.from(store.slotsById())).toEqual([0, 4, 1, 5, 3]);
  expect(store.liveCount).toBe(5);
  // The space is reused: the next point takes the first slot past the kept ones.
  expect(store.put(9, vectorOf(9), {}, 3)).toBe(6);
  expect(store.vectors.get(6)).toEqual(vectorOf(9));
});
