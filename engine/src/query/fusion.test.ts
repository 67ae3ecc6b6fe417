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

  test('dbsf maps mean ± 3 sample deviations onto 0..1; a lone score is 0.5', () => {
    const fused = dbsf([list([1, 1], [2, 3]), list([3, 5])]);
    const std = Math.sqrt(2);
    expect(fused).toEqual([
      { slot: 2, score: Math.fround((3 - (2 - 3 * std)) / (6 * std)) },
      { slot: 3, score: 0.5 },
      { slot: 1, score: Math.fround((1 - (2 - 3 * std)) / (6 * std)) },
    ]);
  });
});
