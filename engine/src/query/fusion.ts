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

/** Distribution-based score fusion; best first. */
export function dbsf(lists: Scored[][]): Scored[] {
  const scores = new Map<number, number>();
  for (const list of lists) {
    if (list.length === 0) continue;
    const mean = list.reduce((s, p) => s + p.score, 0) / list.length;
    const variance =
      list.length < 2 ? 0 : list.reduce((s, p) => s + (p.score - mean) ** 2, 0) / (list.length - 1);
    const std = Math.sqrt(variance);
    const low = mean - 3 * std;
    const high = mean + 3 * std;
    for (const { slot, score } of list) {
      const normalised = high === low ? 0.5 : (score - low) / (high - low);
      scores.set(slot, (scores.get(slot) ?? 0) + normalised);
    }
  }
  return sorted(scores);
}

function sorted(scores: Map<number, number>): Scored[] {
  return [...scores]
    .map(([slot, score]) => ({ slot, score: Math.fround(score) }))
    .sort((a, b) => b.score - a.score || a.slot - b.slot);
}
