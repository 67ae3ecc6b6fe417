import { describe, expect, test } from '@jest/globals';
import { dbsf, rrf } from './fusion.js';

const list = (...pairs: [number, number][]) => pairs.map(([slot, score]) => ({ slot, score }));

describe('fusion', () => {
  // Values qdrant-edge 0.9.0 printed for the same lists (see the differential suite).
  test('rrf adds 1 / (k + rank) per list', () => {
    const fused = rrf([list([1, 9], [2, 8]), list([7, 9], [1, 3])], 2);
    expect(fused).toEqual([
      { slot: 1, score: Math.fround(0.5 + 1 / 3) },
      { slot: 7, score: 0.5 },
      { slot: 2, score: Math.fround(1 / 3) },
    ]);
  });

  test('weighted rrf adds 1 / (k - 1 + (rank + 1) / weight)', () => {
    const fused = rrf([list([1, 9], [2, 8]), list([7, 9])], 2, [3, 1]);
    expect(fused.map((p) => p.score)).toEqual([0.75, 0.6, 0.5].map(Math.fround));
  });

  test('dbsf rounds as Qdrant does for scores close together', () => {
    // qdrant-edge 0.9.0 fused these three Dot scores (one prefetch) to these values.
    const fused = dbsf([
      list([1, 0.9998349547386169], [2, 0.9995377063751221], [3, 0.9995301961898804]),
    ]);
    expect(fused.map((p) => p.score)).toEqual([
      0.6923032999038696, 0.4073481559753418, 0.40014857053756714,
    ]);
  });

  test('dbsf maps mean ± 3 sample deviations onto 0..1; a lone score is 0.5', () => {
    const fused = dbsf([list([1, 1], [2, 3]), list([3, 5])]);
    const std = Math.sqrt(2);
    expect(fused.map((p) => p.slot)).toEqual([2, 3, 1]);
    expect(fused[0]!.score).toBeCloseTo((3 - (2 - 3 * std)) / (6 * std), 6);
    expect(fused[1]!.score).toBe(0.5);
    expect(fused[2]!.score).toBeCloseTo((1 - (2 - 3 * std)) / (6 * std), 6);
  });
});
