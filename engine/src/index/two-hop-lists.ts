/**
 * What a two-hop walk (hnsw.ts) reads of a node under one filter, worked out once and kept:
 * its neighbours that pass, and for each neighbour that fails, that neighbour's own
 * neighbours that pass. Without them, expanding a node under a selective filter reads the
 * link list of every failing neighbour (some thirty random reads at 10%); with them it reads
 * one list. They hold only while the graph's links and the filter's answers stay as they
 * are: the graph keeps them per filter plan's verdicts and drops them when it changes, and a
 * plan's verdicts are replaced on every write.
 *
 * A node's list, from `offsets[node]`: its length, then entries in link order, each either
 * a passing neighbour (its slot, >= 0) or a failing one that leads to passing slots
 * (`-1 - slot`, their count, the slots).
 */
export class TwoHopLists {
  /** Where each node's list starts in {@link data}, -1 while it has none. */
  readonly offsets: Int32Array;
  data: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.offsets = new Int32Array(capacity).fill(-1);
    this.data = new Int32Array(1024);
  }

  /**
   * Works out `node`'s list from the level-0 links (`m0` a node, `counts` of them used) and
   * the passing slots as bits; returns where it starts, or -1 (no list made) when it would
   * take the lists past `budget` entries.
   */
  build(
    node: number,
    links: Int32Array,
    counts: Uint8Array,
    m0: number,
    passing: Uint32Array,
    budget: number,
  ): number {
    const count = counts[node]!;
    // The longest list the node can have: every neighbour failing, each with m0 passing.
    const most = 1 + count * (2 + m0);
    if (this.length + most > budget) return -1;
    this.reserve(this.length + most);
    const data = this.data;
    const start = this.length;
    let at = start + 1;
    const base = node * m0;
    for (let i = 0; i < count; i++) {
      const next = links[base + i]!;
      if ((passing[next >>> 5]! & (1 << (next & 31))) !== 0) {
        data[at++] = next;
        continue;
      }
      const head = at;
      at += 2;
      const farBase = next * m0;
      const farCount = counts[next]!;
      for (let j = 0; j < farCount; j++) {
        const far = links[farBase + j]!;
        if ((passing[far >>> 5]! & (1 << (far & 31))) !== 0) data[at++] = far;
      }
      // A failing neighbour that leads nowhere is left out: stepping over it finds nothing.
      if (at === head + 2) at = head;
      else {
        data[head] = -1 - next;
        data[head + 1] = at - head - 2;
      }
    }
    data[start] = at - start - 1;
    this.length = at;
    this.offsets[node] = start;
    return start;
  }

  /**
   * Writes the slots of the list at `at` that are not marked `mark` in `visited` to `out`,
   * marking them and the failing neighbours stepped over, as a walk over the links would
   * (at most `max`); returns how many.
   */
  unvisited(
    at: number,
    visited: Uint8Array,
    mark: number,
    out: Int32Array,
    max = out.length,
  ): number {
    const data = this.data;
    let written = 0;
    const end = at + 1 + data[at]!;
    for (let i = at + 1; i < end && written < max;) {
      const entry = data[i++]!;
      if (entry >= 0) {
        if (visited[entry] === mark) continue;
        visited[entry] = mark;
        out[written++] = entry;
        continue;
      }
      // A failing neighbour: its passing slots follow its count.
      const farEnd = i + 1 + data[i]!;
      const next = -1 - entry;
      if (visited[next] !== mark) {
        visited[next] = mark;
        for (i++; i < farEnd && written < max; i++) {
          const far = data[i]!;
          if (visited[far] === mark) continue;
          visited[far] = mark;
          out[written++] = far;
        }
      }
      i = farEnd;
    }
    return written;
  }

  private reserve(size: number): void {
    if (size <= this.data.length) return;
    let grown = this.data.length * 2;
    while (grown < size) grown *= 2;
    const data = new Int32Array(grown);
    data.set(this.data.subarray(0, this.length));
    this.data = data;
  }
}
