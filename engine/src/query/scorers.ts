/**
 * Qdrant's example-based scores, computed from internal similarities (higher is better;
 * Euclid and Manhattan negated): recommend's `best_score` and `sum_scores`, discover and
 * context. Qdrant computes them in float32 and reports them as they are (no distance
 * postprocessing), so do these.
 */
import type { ContextPair, Scoring } from './plan.js';

/** Qdrant's cheap sigmoid, `x / (1 + |x|)`, in (-1, 1). */
export function fastSigmoid(x: number): number {
  return Math.fround(x / (1 + Math.abs(x)));
}

/** {@link fastSigmoid} moved into (0, 1). */
export function scaledFastSigmoid(x: number): number {
  return Math.fround(0.5 * (fastSigmoid(x) + 1));
}

/** float32's machine epsilon: Qdrant's context margin. */
const MARGIN = 1.1920929e-7;

/** The example-based scorings (those that score against several vectors). */
export type ExampleScoring = Extract<Scoring, { kind: 'recommend' | 'discover' | 'context' }>;

/** The vectors a scoring compares each point with, in the order {@link scoreBy} reads them. */
export function examplesOf(scoring: ExampleScoring): Float32Array[] {
  switch (scoring.kind) {
    case 'recommend':
      return [...scoring.positives, ...scoring.negatives];
    case 'discover':
      return [scoring.target, ...pairVectors(scoring.pairs)];
    case 'context':
      return pairVectors(scoring.pairs);
  }
}

function pairVectors(pairs: ContextPair[]): Float32Array[] {
  return pairs.flatMap((p) => [p.positive, p.negative]);
}

/** A point's score from its similarities to {@link examplesOf} the scoring. */
export function scoreBy(scoring: ExampleScoring, sims: ArrayLike<number>): number {
  switch (scoring.kind) {
    case 'recommend': {
      const p = scoring.positives.length;
      const n = scoring.negatives.length;
      if (scoring.strategy === 'sum_scores') {
        let sum = 0;
        for (let i = 0; i < p; i++) sum += sims[i]!;
        for (let i = p; i < p + n; i++) sum -= sims[i]!;
        return Math.fround(sum);
      }
      let bestPositive = -Infinity;
      let bestNegative = -Infinity;
      for (let i = 0; i < p; i++) bestPositive = Math.max(bestPositive, sims[i]!);
      for (let i = p; i < p + n; i++) bestNegative = Math.max(bestNegative, sims[i]!);
      return bestPositive > bestNegative
        ? scaledFastSigmoid(bestPositive)
        : -scaledFastSigmoid(bestNegative);
    }
    case 'discover': {
      let rank = 0;
      for (let i = 1; i < sims.length; i += 2) rank += Math.sign(sims[i]! - sims[i + 1]!);
      return Math.fround(rank + scaledFastSigmoid(sims[0]!));
    }
    case 'context': {
      let loss = 0;
      for (let i = 0; i < sims.length; i += 2) {
        loss += Math.min(fastSigmoid(sims[i]! - sims[i + 1]! - MARGIN), 0);
      }
      return Math.fround(loss);
    }
  }
}
