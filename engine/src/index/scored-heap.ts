/**
 * A growable binary min-heap of (score, slot) pairs on typed arrays, the priority queue
 * the HNSW search runs on. A max-heap is the same heap fed negated scores.
 */
export class ScoredHeap {
  private scores: Float64Array;
  private slots: Int32Array;
  size = 0;

  constructor(capacity = 64) {
    this.scores = new Float64Array(capacity);
    this.slots = new Int32Array(capacity);
  }

  /** Empties the heap, keeping its memory. */
  clear(): void {
    this.size = 0;
  }

  /** The smallest score (undefined behaviour when empty). */
  topScore(): number {
    return this.scores[0]!;
  }

  /** The slot with the smallest score. */
  topSlot(): number {
    return this.slots[0]!;
  }

  /** Adds an entry. */
  push(score: number, slot: number): void {
    if (this.size === this.scores.length) {
      const scores = new Float64Array(this.size * 2);
      scores.set(this.scores);
      this.scores = scores;
      const slots = new Int32Array(this.size * 2);
      slots.set(this.slots);
      this.slots = slots;
    }
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent]! <= score) break;
      this.scores[i] = this.scores[parent]!;
      this.slots[i] = this.slots[parent]!;
      i = parent;
    }
    this.scores[i] = score;
    this.slots[i] = slot;
  }

  /** Removes the smallest entry. */
  pop(): void {
    const n = --this.size;
    if (n <= 0) return;
    this.siftDown(this.scores[n]!, this.slots[n]!, n);
  }

  /** Replaces the smallest entry by (score, slot), in one sift (a bounded heap's hot path). */
  replaceTop(score: number, slot: number): void {
    this.siftDown(score, slot, this.size);
  }

  /** The entry at heap position `i` (0 ≤ i < size), in no particular order. */
  entryAt(i: number): { score: number; slot: number } {
    return { score: this.scores[i]!, slot: this.slots[i]! };
  }

  /** Places (score, slot) from the root down among the first `n` entries. */
  private siftDown(score: number, slot: number, n: number): void {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.scores[right]! < this.scores[left]! ? right : left;
      if (this.scores[child]! >= score) break;
      this.scores[i] = this.scores[child]!;
      this.slots[i] = this.slots[child]!;
      i = child;
    }
    this.scores[i] = score;
    this.slots[i] = slot;
  }
}
