/**
 * Keeps the k best (highest similarity) of a stream of scored slots in a binary min-heap
 * over typed arrays, so an exact scan of a large collection allocates nothing per point.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly slots: Int32Array;
  private size = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(1, k));
    this.slots = new Int32Array(Math.max(1, k));
  }

  /** The similarity a new entry must beat once the heap is full, else -Infinity. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** Offers one scored slot. */
  push(score: number, slot: number): void {
    if (this.k === 0) return;
    if (this.size < this.k) {
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
      return;
    }
    if (score <= this.scores[0]!) return;
    this.siftDown(score, slot);
  }

  private siftDown(score: number, slot: number): void {
    let i = 0;
    const n = this.size;
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

  /** The entries, best first. */
  sorted(): { score: number; slot: number }[] {
    const out: { score: number; slot: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ score: this.scores[i]!, slot: this.slots[i]! });
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
}
