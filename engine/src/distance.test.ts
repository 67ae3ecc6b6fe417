import { describe, expect, test } from '@jest/globals';
import { passesThreshold, preprocess, reportedScore, similarityFn } from './distance.js';
import type { Distance } from './distance.js';

function score(distance: Distance, a: number[], b: number[]): number {
  const stored = preprocess(distance, Float32Array.from(a));
  const query = preprocess(distance, Float32Array.from(b));
  return reportedScore(distance, similarityFn(distance)(stored, 0, query, 0, a.length));
}

describe('scores as Qdrant reports them', () => {
  test('Cosine normalises both sides and leaves a zero vector alone', () => {
    expect(score('Cosine', [3, 4], [2, 0])).toBeCloseTo(0.6, 6);
    expect(Array.from(preprocess('Cosine', Float32Array.from([0, 0])))).toEqual([0, 0]);
    expect(score('Cosine', [0, 0], [1, 0])).toBe(0);
  });

  test('Dot is the raw product', () => {
    expect(score('Dot', [1, 2], [3, 4])).toBe(11);
  });

  test('Euclid and Manhattan report distances', () => {
    expect(score('Euclid', [0, 0], [3, 4])).toBe(5);
    expect(score('Manhattan', [0, 0], [3, -4])).toBe(7);
  });
});

test('score_threshold bounds distances from above and similarities from below', () => {
  expect(passesThreshold('Euclid', 1.9, 2)).toBe(true);
  expect(passesThreshold('Euclid', 2.1, 2)).toBe(false);
  expect(passesThreshold('Cosine', 0.5, 0.4)).toBe(true);
  expect(passesThreshold('Dot', 0.3, 0.4)).toBe(false);
});
