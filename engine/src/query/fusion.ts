/**
 * Fusion of prefetch results, as Qdrant fuses them: reciprocal rank fusion (each list
 * adds `1 / (k - 1 + (rank + 1) / weight)` for a point at 0-based `rank`, which is
 * `1 / (k + rank)` at weight 1) and distribution-based score fusion (each list's scores
 * mapped from mean ± 3 sample standard deviations onto 0..1, then summed).
 */
import type { Scored } from './plan.js';

/** Reciprocal rank fusion; best first. */
export function rrf(lists: Scored[][], k: number, weights?: number[]): Scored[] {
  const scores = new Map<number, number>();
  lists.forEach((list, i) => {
    const weight = weights?.[i] ?? 1;
    list.forEach(({ slot }, rank) => {
      const add = 1 / (k - 1 + (rank + 1) / weight);
      scores.set(slot, (scores.get(slot) ?? 0) + add);
    });
  });
  return sorted(scores);
}

/**
 * Distribution-based score fusion; best first. Computed as Qdrant computes it, in float32
 * with Welford's running mean and variance: scores close together have a tiny deviation
 * that magnifies every rounding, so only the same steps give the same fused scores.
 */
export function dbsf(lists: Scored[][]): Scored[] {
  const f = Math.fround;
  const scores = new Map<number, number>();
  for (const list of lists) {
    if (list.length === 0) continue;
    let mean = 0;
    let squares = 0;
    list.forEach(({ score }, i) => {
      const delta = f(score - mean);
      mean = f(mean + f(delta / (i + 1)));
      squares = f(squares + f(delta * f(score - mean)));
    });
    const std = list.length < 2 ? 0 : f(Math.sqrt(f(squares / (list.length - 1))));
    const low = f(mean - f(3 * std));
    const high = f(mean + f(3 * std));
    const range = f(high - low);
    for (const { slot, score } of list) {
      const normalised = range === 0 ? 0.5 : f(f(score - low) / range);
      scores.set(slot, f((scores.get(slot) ?? 0) + normalised));
    }
  }
  return sorted(scores);
}

function sorted(scores: Map<number, number>): Scored[] {
  return [...scores]
    .map(([slot, score]) => ({ slot, score: Math.fround(score) }))
    .sort((a, b) => b.score - a.score || a.slot - b.slot);
}
