import { expect, test } from '@jest/globals';
import { preprocess, similarityFn } from '../distance.js';
import type { Distance } from '../distance.js';
import { Hnsw } from '../index/hnsw.js';
import { VectorArena } from '../store/vector-arena.js';
import { seededRandom } from '../../../common/seeded-random.js';
import { QuantizedVectors } from './quantized-vectors.js';
import { ScalarQuantizer, int8KindOf, scalarBounds } from './scalar.js';

const DISTANCES: Distance[] = ['Cosine', 'Dot', 'Euclid', 'Manhattan'];

/** `n` vectors around a few centres, preprocessed for the distance. */
function clustered(n: number, dim: number, distance: Distance, seed: number): VectorArena {
  const random = seededRandom(seed);
  const centres = Array.from({ length: 8 }, () =>
    Float32Array.from({ length: dim }, () => random() * 2 - 1),
  );
  const arena = new VectorArena(dim, distance, { initialCapacity: 16 });
  for (let i = 0; i < n; i++) {
    const centre = centres[i % centres.length]!;
    const v = Float32Array.from({ length: dim }, (_, d) => centre[d]! + (random() - 0.5) * 0.6);
    arena.push(preprocess(distance, v));
  }
  return arena;
}

function quantize(arena: VectorArena, distance: Distance, quantile = 1): QuantizedVectors {
  const slots = Array.from({ length: arena.length }, (_, s) => s);
  const bounds = scalarBounds(arena.data, arena.dim, slots, quantile);
  const rows = new QuantizedVectors(arena.dim, distance, bounds, arena.length);
  for (const slot of slots) rows.encode(slot, arena.data);
  return rows;
}

test('a value inside the bounds decodes to within half a step of itself', () => {
  const random = seededRandom(1);
  const values = Float32Array.from({ length: 4096 }, () => random() * 6 - 3);
  const bounds = scalarBounds(
    values,
    1,
    Array.from({ length: 4096 }, (_, i) => i),
  );
  const quantizer = new ScalarQuantizer(bounds, 1, 'dot');
  const codes = new Uint8Array(1);
  for (const x of values) {
    quantizer.encode([x], codes, 0);
    expect(Math.abs(quantizer.decode(codes[0]!) - x)).toBeLessThanOrEqual(bounds.alpha / 2 + 1e-6);
  }
});

test('the quantile leaves the outer values out of the bounds, and they are clamped', () => {
  const values = Float32Array.from({ length: 1001 }, (_, i) => i / 1000);
  values[1000] = 100; // one outlier
  const slots = Array.from({ length: 1001 }, (_, i) => i);
  const full = scalarBounds(values, 1, slots, 1);
  const central = scalarBounds(values, 1, slots, 0.99);
  expect(full.lo + 255 * full.alpha).toBeCloseTo(100, 3);
  expect(central.lo + 255 * central.alpha).toBeLessThan(1.1);
  const quantizer = new ScalarQuantizer(central, 1, 'l2');
  const codes = new Uint8Array(1);
  quantizer.encode([100], codes, 0);
  expect(codes[0]).toBe(255);
  quantizer.encode([-5], codes, 0);
  expect(codes[0]).toBe(0);
});

test('a collection of one repeated value encodes without dividing by zero', () => {
  const values = new Float32Array(64).fill(0.5);
  const bounds = scalarBounds(values, 4, [0, 1, 2, 3]);
  expect(bounds.alpha).toBeGreaterThan(0);
  const quantizer = new ScalarQuantizer(bounds, 4, 'dot');
  const codes = new Uint8Array(4);
  quantizer.encode([0.5, 0.5, 0.5, 0.5], codes, 0);
  expect([...codes].map((c) => quantizer.decode(c))).toEqual([0.5, 0.5, 0.5, 0.5]);
});

test.each(DISTANCES)(
  'quantized similarities track the exact ones within the rounding error (%s)',
  (distance) => {
    const dim = 40; // not a multiple of 16: the padded tail must add nothing
    const arena = clustered(200, dim, distance, 3);
    const rows = quantize(arena, distance);
    const { alpha } = rows.bounds;
    const sim = similarityFn(distance);
    const queries = clustered(20, dim, distance, 4);
    for (let q = 0; q < queries.length; q++) {
      const query = queries.get(q);
      const qp = rows.placeQuery(query);
      for (let slot = 0; slot < arena.length; slot += 7) {
        const exact = sim(arena.data, slot * dim, query, 0, dim);
        const approx = rows.space.similarity(rows.space.base + slot * rows.space.stride, qp, dim);
        // Each coordinate is off by at most alpha/2: bound the error of the sum by that.
        const kind = int8KindOf(distance);
        const perDim = kind === 'l1' ? alpha : kind === 'l2' ? 4 * alpha : 2 * alpha;
        expect(Math.abs(approx - exact)).toBeLessThanOrEqual(perDim * dim + 1e-3);
      }
    }
  },
);

test.each(DISTANCES)('gather scores match the pairwise kernel (%s)', (distance) => {
  const arena = clustered(100, 24, distance, 5);
  const rows = quantize(arena, distance);
  const { space } = rows;
  const q = rows.placeQuery(arena.get(0));
  const slots = [3, 50, 99, 0, 17];
  space.gatherIds.set(slots);
  space.gather(q, slots.length);
  slots.forEach((slot, i) => {
    expect(space.gatherScores[i]).toBeCloseTo(
      space.similarity(space.base + slot * space.stride, q, space.dim),
      3,
    );
  });
});

test.each(DISTANCES)(
  'quantized ranking keeps most of the exact top 10, and rescoring restores the order (%s)',
  (distance) => {
    const dim = 64;
    const arena = clustered(2000, dim, distance, 11);
    const rows = quantize(arena, distance, 0.99);
    const sim = similarityFn(distance);
    const queries = clustered(20, dim, distance, 12);
    let kept = 0;
    for (let q = 0; q < queries.length; q++) {
      const query = queries.get(q);
      const exact = Array.from({ length: arena.length }, (_, slot) => ({
        slot,
        score: sim(arena.data, slot * dim, query, 0, dim),
      })).sort((a, b) => b.score - a.score);
      const qp = rows.placeQuery(query);
      const approx = Array.from({ length: arena.length }, (_, slot) => ({
        slot,
        score: rows.space.similarity(rows.space.base + slot * rows.space.stride, qp, dim),
      })).sort((a, b) => b.score - a.score);
      const truth = new Set(exact.slice(0, 10).map((h) => h.slot));
      kept += approx.slice(0, 10).filter((h) => truth.has(h.slot)).length;
      // Rescoring the quantized top 40 with exact scores gives the exact top 10.
      const rescored = approx
        .slice(0, 40)
        .map((h) => ({ slot: h.slot, score: sim(arena.data, h.slot * dim, query, 0, dim) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10)
        .map((h) => h.slot);
      expect(rescored).toEqual(exact.slice(0, 10).map((h) => h.slot));
    }
    expect(kept / 200).toBeGreaterThanOrEqual(0.8);
  },
);

test('a graph view over the quantized rows, rescored, finds what the full-precision walk finds', () => {
  const distance: Distance = 'Cosine';
  const arena = clustered(3000, 32, distance, 21);
  const graph = new Hnsw(arena.space, { m: 16, efConstruct: 100, seed: 1 });
  for (let slot = 0; slot < arena.length; slot++) graph.insert(slot);
  const rows = quantize(arena, distance);
  const walk = graph.view(rows.space);
  const sim = similarityFn(distance);
  const queries = clustered(30, 32, distance, 22);
  let hits = 0;
  let floatHits = 0;
  for (let q = 0; q < queries.length; q++) {
    const query = queries.get(q);
    const truth = new Set(
      Array.from({ length: arena.length }, (_, slot) => slot)
        .sort(
          (a, b) => sim(arena.data, b * 32, query, 0, 32) - sim(arena.data, a * 32, query, 0, 32),
        )
        .slice(0, 10),
    );
    const found = walk
      .search(rows.placeQuery(query), 30, 100)
      .map((h) => ({ slot: h.slot, score: sim(arena.data, h.slot * 32, query, 0, 32) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    hits += found.filter((h) => truth.has(h.slot)).length;
    const walked = graph.search(arena.placeQuery(query), 10, 100);
    floatHits += walked.filter((h) => truth.has(h.slot)).length;
  }
  // As good as the full-precision walk of the same graph, give or take 3 of 300.
  expect(hits).toBeGreaterThanOrEqual(floatHits - 9);
  expect(hits / 300).toBeGreaterThanOrEqual(0.85);
});
