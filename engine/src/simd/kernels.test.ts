import { expect, test } from '@jest/globals';
import { similarityFn } from '../distance.js';
import type { Distance } from '../distance.js';
import { VectorArena } from '../store/vector-arena.js';

test.each<[Distance, number]>([
  ['Dot', 7],
  ['Euclid', 128],
  ['Manhattan', 33],
  ['Cosine', 4],
])('the SIMD kernels agree with the scalar reference (%s, %i dimensions)', (distance, dim) => {
  const arena = new VectorArena(dim, distance, { initialCapacity: 4 });
  const vectors = Array.from({ length: 11 }, (_, i) =>
    Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 31 + d * 7)),
  );
  vectors.forEach((v) => arena.push(v));
  const query = Float32Array.from({ length: dim }, (_, d) => Math.cos(d));
  const q = arena.placeQuery(query);
  const reference = similarityFn(distance);
  const scanned = Array.from(arena.scanScores(q, 0, 11));
  vectors.forEach((v, slot) => {
    const expected = reference(v, 0, query, 0, dim);
    expect(arena.similarity(slot, q)).toBeCloseTo(expected, 3);
    expect(scanned[slot]).toBe(arena.similarity(slot, q));
  });
});

test('a gather scores the listed slots as the pairwise kernel does', () => {
  const dim = 37;
  const arena = new VectorArena(dim, 'Euclid', { initialCapacity: 8 });
  for (let i = 0; i < 8; i++) {
    arena.push(Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 13 + d)));
  }
  const q = arena.placeQuery(Float32Array.from({ length: dim }, (_, d) => Math.cos(d)));
  const slots = [6, 1, 1, 4];
  arena.space.gatherIds.set(slots);
  arena.space.gather(q, slots.length);
  slots.forEach((slot, i) => {
    expect(arena.space.gatherScores[i]).toBeCloseTo(arena.similarity(slot, q), 5);
  });
});

test.each<[number, Distance]>([
  [37, 'Dot'],
  [128, 'Dot'],
  [300, 'Dot'],
  [13, 'Euclid'],
  [768, 'Euclid'],
  [130, 'Manhattan'],
])(
  'a gather of many slots gives each the pairwise kernel’s exact score (%i dimensions, %s)',
  (dim, distance) => {
    // 300 floats (1200 bytes) is wider than what a gather reads ahead of scoring, 37 and 128
    // narrower; the gather scores slots two at a time and an odd one alone, in the sums'
    // order of the pairwise kernel: each slot's score must come out as that kernel computes it.
    const arena = new VectorArena(dim, distance, { initialCapacity: 64 });
    for (let i = 0; i < 64; i++) {
      arena.push(Float32Array.from({ length: dim }, (_, d) => Math.sin(i * 17 + d * 3)));
    }
    const q = arena.placeQuery(Float32Array.from({ length: dim }, (_, d) => Math.cos(d * 5)));
    const slots = Array.from({ length: 201 }, (_, i) => (i * 37) % 64);
    arena.space.gatherIds.set(slots);
    arena.space.gather(q, slots.length);
    const scores = Array.from(arena.space.gatherScores.subarray(0, slots.length));
    expect(scores).toEqual(slots.map((slot) => arena.similarity(slot, q)));
  },
);
