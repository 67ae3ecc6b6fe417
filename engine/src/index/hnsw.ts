/**
 * A Hierarchical Navigable Small World graph (Malkov & Yashunin) over the slots of a
 * vector arena, with hnswlib's neighbour-selection heuristic. Nodes are arena slots;
 * the graph never moves vectors, so it can be built in a worker over the shared memory
 * and handed back. Vectors are compared by byte offset with the arena's SIMD kernels.
 * Deleted points stay in the graph as waypoints and are filtered from results by the
 * caller's `accept`.
 */
import { GATHER_MAX } from '../store/vector-arena.js';
import type { VectorSpace } from '../store/vector-arena.js';
import { FAILS, PASSES, UNKNOWN } from './verdicts.js';
import type { KnownVerdicts } from './verdicts.js';
import { ScoredHeap } from './scored-heap.js';
import { TwoHopLists } from './two-hop-lists.js';

/** Filters whose two-hop lists a graph keeps at a time (a filter plan cache remembers eight). */
const HOP_FILTERS = 8;

/** Construction parameters (Qdrant's defaults: m 16, ef_construct 100). */
export interface HnswParams {
  m: number;
  efConstruct: number;
  seed: number;
}

/** A graph as plain typed arrays, to cross a worker boundary. */
export interface HnswState {
  params: HnswParams;
  capacity: number;
  nodes: number;
  entry: number;
  maxLevel: number;
  rng: number;
  levels: Int8Array;
  links0: Int32Array;
  count0: Uint8Array;
  upperOffsets: Int32Array;
  upperData: Int32Array;
}

/**
 * Whether a slot is accepted: by the passing bits when every verdict is known, else by its
 * verdict when known, else by `accept`. A plain function, which the walk inlines, where
 * `accept` is a closure called through the filter plan: about a tenth of a selective
 * filtered search at 768-d (bench/README.md).
 */
function accepted(
  passing: Uint32Array | undefined,
  bytes: Uint8Array | undefined,
  accept: (slot: number) => boolean,
  slot: number,
): boolean {
  if (passing !== undefined) return (passing[slot >>> 5]! & (1 << (slot & 31))) !== 0;
  if (bytes !== undefined) {
    const verdict = bytes[slot]!;
    if (verdict !== UNKNOWN) return verdict === PASSES;
  }
  return accept(slot);
}

/** Whether a slot is known to fail: its bit is clear, or its verdict is FAILS. */
function knownToFail(
  passing: Uint32Array | undefined,
  bytes: Uint8Array | undefined,
  slot: number,
): boolean {
  if (passing !== undefined) return (passing[slot >>> 5]! & (1 << (slot & 31))) === 0;
  return bytes !== undefined && bytes[slot] === FAILS;
}

/** The graph. */
export class Hnsw {
  readonly params: HnswParams;
  private readonly similarity: VectorSpace['similarity'];
  private readonly gather: VectorSpace['gather'];
  private readonly gatherIds: Int32Array;
  private readonly gatherScores: Float32Array;
  private readonly origin: number;
  private readonly dim: number;
  private readonly width: number;
  private readonly m0: number;
  private readonly levelMult: number;
  private capacity: number;
  /** Level of each slot's node, -1 when the slot is not in the graph. */
  private levels: Int8Array;
  private links0: Int32Array;
  private count0: Uint8Array;
  /** Per node with levels above 0: for each level, a count then `m` neighbours. */
  private upper: (Int32Array | undefined)[] = [];
  /**
   * The walk that last visited each slot, by its mark (1 to 255, the array cleared when
   * the marks wrap): a byte per slot, where four kept a filtered walk's random reads out
   * of cache (a tenth of its time at 768-d).
   */
  private visited: Uint8Array;
  private visitMark = 0;
  /** The similarity of the node a greedy descent has reached (see {@link greedy}). */
  private descentScore = 0;
  /**
   * The two-hop lists (two-hop-lists.ts) of the last {@link HOP_FILTERS} filters walked, by
   * their passing bits, while the links stay as they are; together they hold at most as many
   * entries as level 0 has links. A filter plan's bits are new after every write, so the
   * oldest filter's lists make room for a new one's.
   */
  private hopLists = new Map<Uint32Array, TwoHopLists>();
  private hopEntries = 0;
  private readonly candidateHeap = new ScoredHeap(256);
  private readonly resultHeap = new ScoredHeap(256);
  private rng: number;
  entry = -1;
  maxLevel = -1;
  nodes = 0;

  constructor(space: VectorSpace, params: HnswParams, capacity = 1024) {
    this.params = params;
    if (params.m * 2 > GATHER_MAX) throw new Error(`HNSW m ${params.m} is above ${GATHER_MAX / 2}`);
    this.similarity = space.similarity;
    this.gather = space.gather;
    this.gatherIds = space.gatherIds;
    this.gatherScores = space.gatherScores;
    this.origin = space.base;
    this.dim = space.dim;
    this.width = space.stride;
    this.m0 = params.m * 2;
    this.levelMult = 1 / Math.log(params.m);
    this.capacity = capacity;
    this.levels = new Int8Array(capacity).fill(-1);
    this.links0 = new Int32Array(capacity * this.m0);
    this.count0 = new Uint8Array(capacity);
    this.visited = new Uint8Array(capacity);
    this.rng = params.seed >>> 0 || 1;
  }

  /** Rebuilds a graph from {@link toState} output. */
  static fromState(space: VectorSpace, state: HnswState): Hnsw {
    const graph = new Hnsw(space, state.params, state.capacity);
    graph.levels = state.levels;
    graph.links0 = state.links0;
    graph.count0 = state.count0;
    for (let slot = 0; slot < state.capacity; slot++) {
      const from = state.upperOffsets[slot]!;
      const to = state.upperOffsets[slot + 1]!;
      if (to > from) graph.upper[slot] = state.upperData.slice(from, to);
    }
    graph.entry = state.entry;
    graph.maxLevel = state.maxLevel;
    graph.nodes = state.nodes;
    graph.rng = state.rng;
    return graph;
  }

  /**
   * The same graph walked in another space over the same slots (the quantized rows): the
   * link arrays are shared, not copied, so the view must only be searched, never extended.
   */
  view(space: VectorSpace): Hnsw {
    const graph = new Hnsw(space, this.params, 1);
    graph.capacity = this.capacity;
    graph.levels = this.levels;
    graph.links0 = this.links0;
    graph.count0 = this.count0;
    graph.upper = this.upper;
    graph.visited = new Uint8Array(this.capacity);
    graph.entry = this.entry;
    graph.maxLevel = this.maxLevel;
    graph.nodes = this.nodes;
    return graph;
  }

  /** Whether a slot is a node of the graph. */
  has(slot: number): boolean {
    return slot < this.capacity && this.levels[slot]! >= 0;
  }

  /** The graph as transferable typed arrays. */
  toState(): HnswState {
    const upperOffsets = new Int32Array(this.capacity + 1);
    let total = 0;
    for (let slot = 0; slot < this.capacity; slot++) {
      upperOffsets[slot] = total;
      total += this.upper[slot]?.length ?? 0;
    }
    upperOffsets[this.capacity] = total;
    const upperData = new Int32Array(total);
    for (let slot = 0; slot < this.capacity; slot++) {
      const links = this.upper[slot];
      if (links) upperData.set(links, upperOffsets[slot]!);
    }
    return {
      params: this.params,
      capacity: this.capacity,
      nodes: this.nodes,
      entry: this.entry,
      maxLevel: this.maxLevel,
      rng: this.rng,
      levels: this.levels,
      links0: this.links0,
      count0: this.count0,
      upperOffsets,
      upperData,
    };
  }

  private ensureCapacity(slot: number): void {
    if (slot < this.capacity) return;
    let capacity = this.capacity;
    while (capacity <= slot) capacity *= 2;
    const levels = new Int8Array(capacity).fill(-1);
    levels.set(this.levels);
    const links0 = new Int32Array(capacity * this.m0);
    links0.set(this.links0);
    const count0 = new Uint8Array(capacity);
    count0.set(this.count0);
    this.levels = levels;
    this.links0 = links0;
    this.count0 = count0;
    this.visited = new Uint8Array(capacity);
    this.visitMark = 0;
    this.capacity = capacity;
  }

  private random(): number {
    // mulberry32: deterministic levels make a build reproducible from its seed.
    let t = (this.rng = (this.rng + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private nextMark(): number {
    if (++this.visitMark === 0x100) {
      this.visited.fill(0);
      this.visitMark = 1;
    }
    return this.visitMark;
  }

  private neighbours(
    slot: number,
    level: number,
  ): { links: Int32Array; base: number; count: number } {
    if (level === 0) {
      return { links: this.links0, base: slot * this.m0, count: this.count0[slot]! };
    }
    const links = this.upper[slot]!;
    const base = (level - 1) * (this.params.m + 1);
    return { links, base: base + 1, count: links[base]! };
  }

  private setNeighbours(slot: number, level: number, ids: number[]): void {
    if (level === 0) {
      this.links0.set(ids, slot * this.m0);
      this.count0[slot] = ids.length;
      return;
    }
    const links = this.upper[slot]!;
    const base = (level - 1) * (this.params.m + 1);
    links[base] = ids.length;
    links.set(ids, base + 1);
  }

  /**
   * Greedy walk to the node most similar to the vector at byte offset `q`, on one level,
   * from `from`, whose similarity is {@link descentScore}; leaves the found node's there.
   * Nodes marked `mark` were scored earlier in the same descent, and none of them beat
   * the best found so far (or the walk would have moved to it), so they are not scored
   * again: the node the walk came from, neighbours two nodes share, a level's nodes met
   * on the level above.
   */
  private greedy(q: number, from: number, level: number, mark: number): number {
    const { visited, gather, gatherIds, gatherScores } = this;
    let best = from;
    let bestScore = this.descentScore;
    for (;;) {
      const { links, base, count } = this.neighbours(best, level);
      let fresh = 0;
      for (let i = 0; i < count; i++) {
        const next = links[base + i]!;
        if (visited[next] === mark) continue;
        visited[next] = mark;
        gatherIds[fresh++] = next;
      }
      gather(q, fresh);
      const previous = best;
      for (let i = 0; i < fresh; i++) {
        const score = gatherScores[i]!;
        if (score > bestScore) {
          bestScore = score;
          best = gatherIds[i]!;
        }
      }
      if (best === previous) {
        this.descentScore = bestScore;
        return best;
      }
    }
  }

  /**
   * Walks from the entry point down to the node most similar to `q` on level `to`,
   * greedily on each level above it (one visit mark for the whole descent).
   */
  private descend(q: number, to: number): number {
    const mark = this.nextMark();
    const current = this.entry;
    this.visited[current] = mark;
    this.descentScore = this.similarity(this.origin + current * this.width, q, this.dim);
    let best = current;
    for (let l = this.maxLevel; l > to; l--) best = this.greedy(q, best, l, mark);
    return best;
  }

  /**
   * Beam search of one level. Returns a min-heap (by similarity) of at most `ef` accepted
   * nodes; rejected nodes are walked through but not returned. The heaps are reused
   * between calls, so read the result before searching again.
   */
  private searchLevel(
    q: number,
    entry: number,
    ef: number,
    level: number,
    accept?: (slot: number) => boolean,
    twoHop = false,
    verdicts?: KnownVerdicts,
  ): ScoredHeap {
    const { similarity, origin, width, dim, visited, m0, links0, count0 } = this;
    const { gather, gatherIds, gatherScores } = this;
    const mark = this.nextMark();
    const bytes = verdicts?.bytes;
    const passing = verdicts?.passing;
    // Once every answer is known, a node's two-hop candidates are worked out once per filter.
    let hops: TwoHopLists | undefined;
    if (twoHop && level === 0 && passing !== undefined) {
      hops = this.hopLists.get(passing) ?? this.newHopLists(passing);
    }
    const candidates = this.candidateHeap; // negated scores: a max-heap
    const results = this.resultHeap;
    candidates.clear();
    results.clear();
    const entryScore = similarity(origin + entry * width, q, dim);
    visited[entry] = mark;
    candidates.push(-entryScore, entry);
    if (!accept || accepted(passing, bytes, accept, entry)) results.push(entryScore, entry);
    const stride = this.params.m + 1;
    while (candidates.size > 0) {
      const score = -candidates.topScore();
      const current = candidates.topSlot();
      if (results.size >= ef && score < results.topScore()) break;
      candidates.pop();
      let links: Int32Array;
      let base: number;
      let count: number;
      if (level === 0) {
        links = links0;
        base = current * m0;
        count = count0[current]!;
      } else {
        links = this.upper[current]!;
        base = (level - 1) * stride + 1;
        count = links[base - 1]!;
      }
      // Unvisited neighbours are scored in one kernel call.
      let fresh = 0;
      const listAt = hops === undefined ? -1 : this.hopListOf(hops, current, passing!);
      if (listAt >= 0) {
        fresh = hops!.unvisited(listAt, visited, mark, gatherIds, GATHER_MAX);
      } else {
        for (let i = 0; i < count && fresh < GATHER_MAX; i++) {
          const next = links[base + i]!;
          if (visited[next] === mark) continue;
          visited[next] = mark;
          if (!twoHop || accepted(passing, bytes, accept!, next)) {
            gatherIds[fresh++] = next;
            continue;
          }
          // ACORN-1: a neighbour the filter rejects is not scored; its neighbours that pass
          // are, so a selective filter's points stay connected without scoring the rest.
          const farBase = next * m0;
          const farCount = count0[next]!;
          for (let j = 0; j < farCount && fresh < GATHER_MAX; j++) {
            const far = links0[farBase + j]!;
            // Most of a selective filter's slots fail: a known failure is one read, not two.
            if (knownToFail(passing, bytes, far)) continue;
            if (visited[far] === mark || !accepted(passing, bytes, accept!, far)) continue;
            visited[far] = mark;
            gatherIds[fresh++] = far;
          }
        }
      }
      if (fresh === 0) continue;
      gather(q, fresh);
      for (let i = 0; i < fresh; i++) {
        const next = gatherIds[i]!;
        const nextScore = gatherScores[i]!;
        if (results.size < ef || nextScore > results.topScore()) {
          candidates.push(-nextScore, next);
          if (!accept || twoHop || accepted(passing, bytes, accept, next)) {
            // A full heap swaps its worst entry out in one sift, not a push and a pop.
            if (results.size < ef) results.push(nextScore, next);
            else results.replaceTop(nextScore, next);
          }
        }
      }
    }
    return results;
  }

  /** Empty two-hop lists for a filter's passing bits, dropping the oldest filter's if need be. */
  private newHopLists(passing: Uint32Array): TwoHopLists {
    if (this.hopLists.size >= HOP_FILTERS) {
      const [oldest, lists] = this.hopLists.entries().next().value!;
      this.hopEntries -= lists.length;
      this.hopLists.delete(oldest);
    }
    const lists = new TwoHopLists(this.capacity);
    this.hopLists.set(passing, lists);
    return lists;
  }

  /** Where `node`'s two-hop list starts, worked out now if need be; -1 past the budget. */
  private hopListOf(hops: TwoHopLists, node: number, passing: Uint32Array): number {
    const at = hops.offsets[node]!;
    if (at >= 0) return at;
    const before = hops.length;
    const budget = hops.length + this.links0.length - this.hopEntries;
    const made = hops.build(node, this.links0, this.count0, this.m0, passing, budget);
    this.hopEntries += hops.length - before;
    return made;
  }

  /**
   * hnswlib's heuristic: keep a candidate only if no kept one is closer to it than the base.
   * Each candidate is compared with every kept one in one kernel call.
   */
  private selectNeighbours(candidates: { score: number; slot: number }[], max: number): number[] {
    candidates.sort((a, b) => b.score - a.score);
    if (candidates.length <= max) return candidates.map((c) => c.slot);
    const { origin, width, gather, gatherIds, gatherScores } = this;
    const kept: number[] = [];
    for (const c of candidates) {
      if (kept.length >= max) break;
      for (let i = 0; i < kept.length; i++) gatherIds[i] = kept[i]!;
      gather(origin + c.slot * width, kept.length);
      let good = true;
      for (let i = 0; i < kept.length; i++) {
        if (gatherScores[i]! > c.score) {
          good = false;
          break;
        }
      }
      if (good) kept.push(c.slot);
    }
    return kept;
  }

  private heapToList(heap: ScoredHeap): { score: number; slot: number }[] {
    const out: { score: number; slot: number }[] = [];
    while (heap.size > 0) {
      out.push({ score: heap.topScore(), slot: heap.topSlot() });
      heap.pop();
    }
    return out;
  }

  /** Adds the vector in `slot` to the graph. */
  insert(slot: number): void {
    this.ensureCapacity(slot);
    if (this.levels[slot]! >= 0) return;
    // New links: the two-hop lists worked out from the old ones no longer hold.
    this.hopLists.clear();
    this.hopEntries = 0;
    const level = Math.min(30, Math.floor(-Math.log(this.random() || 1e-12) * this.levelMult));
    this.levels[slot] = level;
    if (level > 0) this.upper[slot] = new Int32Array(level * (this.params.m + 1));
    this.nodes++;
    if (this.entry < 0) {
      this.entry = slot;
      this.maxLevel = level;
      return;
    }
    const q = this.origin + slot * this.width;
    let current = this.descend(q, level);
    for (let l = Math.min(level, this.maxLevel); l >= 0; l--) {
      const found = this.heapToList(this.searchLevel(q, current, this.params.efConstruct, l));
      const max = l === 0 ? this.m0 : this.params.m;
      const chosen = this.selectNeighbours(found, max);
      this.setNeighbours(slot, l, chosen);
      for (const other of chosen) this.link(other, slot, l, max);
      if (found.length > 0) current = found.reduce((a, b) => (b.score > a.score ? b : a)).slot;
    }
    if (level > this.maxLevel) {
      this.maxLevel = level;
      this.entry = slot;
    }
  }

  /** Adds `to` to `from`'s neighbours, re-selecting with the heuristic when full. */
  private link(from: number, to: number, level: number, max: number): void {
    const { links, base, count } = this.neighbours(from, level);
    if (count < max) {
      links[base + count] = to;
      if (level === 0) this.count0[from] = count + 1;
      else links[base - 1] = count + 1;
      return;
    }
    const { similarity, width, dim } = this;
    const at = this.origin + from * width;
    const candidates = [{ score: similarity(this.origin + to * width, at, dim), slot: to }];
    for (let i = 0; i < count; i++) {
      const n = links[base + i]!;
      candidates.push({ score: similarity(this.origin + n * width, at, dim), slot: n });
    }
    this.setNeighbours(from, level, this.selectNeighbours(candidates, max));
  }

  /**
   * The `k` accepted nodes most similar to the vector at byte offset `q`, best first,
   * exploring `ef` candidates. With `twoHop` (for a filter that rejects most points) the
   * walk scores only accepted nodes and steps over rejected ones to their neighbours;
   * otherwise rejected nodes are scored and walked through. `verdicts`, when given, are
   * `accept`'s answers known in advance (a filter plan's), read instead of calling it.
   */
  search(
    q: number,
    k: number,
    ef: number,
    accept?: (slot: number) => boolean,
    twoHop = false,
    verdicts?: KnownVerdicts,
  ): { score: number; slot: number }[] {
    if (this.entry < 0 || k <= 0) return [];
    const current = this.descend(q, 0);
    const level0 = this.searchLevel(
      q,
      current,
      Math.max(ef, k),
      0,
      accept,
      twoHop && !!accept,
      verdicts,
    );
    const found = this.heapToList(level0);
    found.reverse();
    return found.slice(0, k);
  }
}
