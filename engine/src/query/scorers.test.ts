import { describe, expect, test } from '@jest/globals';
import { scoreBy } from './scorers.js';

const v = () => new Float32Array(2);

describe('example scores', () => {
  // Similarities are Euclid's internal ones (negated squared distances); the expected
  // scores are those qdrant-edge 0.9.0 gave for the same points.
  test('best_score: sigmoid of the best positive, or minus that of the best negative', () => {
    const scoring = {
      kind: 'recommend' as const,
      strategy: 'best_score' as const,
      positives: [v()],
      negatives: [v()],
    };
    expect(scoreBy(scoring, [0, -36])).toBeCloseTo(0.5, 6);
    expect(scoreBy(scoring, [-2, -26])).toBeCloseTo(0.166667, 6);
    expect(scoreBy(scoring, [-9, -9])).toBeCloseTo(-0.05, 6);
  });

  test('sum_scores: positives minus negatives', () => {
    const scoring = {
      kind: 'recommend' as const,
      strategy: 'sum_scores' as const,
      positives: [v()],
      negatives: [v()],
    };
    expect(scoreBy(scoring, [0, -36])).toBe(36);
  });

  test('discover: pairs won minus pairs lost, plus the sigmoid of the target', () => {
    const scoring = {
      kind: 'discover' as const,
      target: v(),
      pairs: [{ positive: v(), negative: v() }],
    };
    expect(scoreBy(scoring, [-1, -5, -17])).toBeCloseTo(1.25, 6);
    expect(scoreBy(scoring, [-1, -9, -9])).toBeCloseTo(0.25, 6);
    expect(scoreBy(scoring, [-4, -26, -2])).toBeCloseTo(-0.9, 6);
  });

  test('context: the sum over pairs of the sigmoid of each shortfall', () => {
    const pair = { positive: v(), negative: v() };
    const scoring = { kind: 'context' as const, pairs: [pair, pair] };
    expect(scoreBy(scoring, [0, -36, 0, -20])).toBe(0);
    expect(scoreBy(scoring, [-26, -2, -17, -5])).toBeCloseTo(-1.883077, 5);
  });
});
