/**
 * Keeps the k best (highest similarity) of a stream of scored slots in a bounded min-heap
 * over typed arrays, so an exact scan of a large collection allocates nothing per point.
 */
import { ScoredHeap } from '../index/scored-heap.js';

/** Entries a heap has room for before it first grows. */
const INITIAL_CAPACITY = 1024;

/** The k highest-scoring slots seen so far. */
export class TopK {
  private readonly heap: ScoredHeap;

  constructor(readonly k: number) {
    // The heap grows as it fills: a large `k` over a small collection allocates little.
    this.heap = new ScoredHeap(Math.min(Math.max(1, k), INITIAL_CAPACITY));
  }

  /** The similarity a new entry must beat once the heap is full, else -Infinity. */
  get threshold(): number {
    return this.heap.size < this.k ? -Infinity : this.heap.topScore();
  }

  /** Offers one scored slot. */
  push(score: number, slot: number): void {
    if (this.k === 0) return;
    if (this.heap.size < this.k) this.heap.push(score, slot);
    else if (score > this.heap.topScore()) this.heap.replaceTop(score, slot);
  }

  /** The entries, best first. */
  sorted(): { score: number; slot: number }[] {
    const out: { score: number; slot: number }[] = [];
    for (let i = 0; i < this.heap.size; i++) out.push(this.heap.entryAt(i));
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
}
