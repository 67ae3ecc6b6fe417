/**
 * Fixed-width float32 vectors in one growable shared WebAssembly memory, one slot per
 * stored vector, with the SIMD distance kernels instantiated on it. The memory is shared,
 * so a worker thread builds the HNSW graph from the same bytes without a copy; a slot is
 * written once and changed only by a vacuum ({@link VectorArena.compact}), which never runs
 * while a build reads, so the worker may read while the main thread appends.
 * The first bytes are scratch space: the query vector and the scores a scan writes, then
 * one region per thread (main, build worker) for the neighbour lists the graph scores in
 * one kernel call, then the scores of the scan helper thread (scan-helper.ts).
 */
import type { Distance } from '../distance.js';
import { MAX_PAGES, createSharedMemory, instantiateKernels, kernelNames } from '../simd/kernels.js';
import type { Kernels, WasmMemory } from '../simd/kernels.js';
import { HELP_FROM_BYTES, HELP_PATIENCE_MS, scanHelper } from './scan-helper.js';
import { SCAN_CHUNK } from './scan-protocol.js';

const PAGE = 65536;

/** The most slots one gather call scores (a graph node's neighbours: `2 m`). */
export const GATHER_MAX = 1024;

/** Where a scan writes its scores, after the query. */
function scanOutput(dim: number): number {
  return dim * 4 + 64 - ((dim * 4) % 16);
}

/** Where a thread's gather region starts: 0 the main thread, 1 the build worker. */
function gatherRegion(dim: number, thread: 0 | 1): number {
  return scanOutput(dim) + SCAN_CHUNK * 4 + thread * GATHER_MAX * 8;
}

/** Where the scan helper thread writes a chunk's scores, after the gather regions. */
export function helperOutput(dim: number): number {
  return gatherRegion(dim, 1) + GATHER_MAX * 8;
}

/** Where the vectors of a memory start, after the scratch space for `dim`-float queries. */
export function vectorsBase(dim: number): number {
  return Math.ceil((helperOutput(dim) + SCAN_CHUNK * 4 + 64) / PAGE) * PAGE;
}

/** What an index needs to compare vectors: where slot 0 is, the width, and the kernels. */
export interface VectorSpace {
  base: number;
  dim: number;
  /** Bytes from one slot's vector to the next. */
  stride: number;
  /** Similarity of the vectors at two byte offsets (higher is better). */
  similarity: (a: number, b: number, dim: number) => number;
  /**
   * Scores the query at byte offset `q` against the first `count` slots of {@link gatherIds}
   * into {@link gatherScores}; `count` at most {@link GATHER_MAX}.
   */
  gather: (q: number, count: number) => void;
  /** This thread's slot list for {@link gather}. */
  gatherIds: Int32Array;
  /** Where {@link gather} writes its similarities. */
  gatherScores: Float32Array;
}

function makeSpace(
  kernels: Kernels,
  memory: WasmMemory,
  dim: number,
  distance: Distance,
  thread: 0 | 1,
): VectorSpace {
  const names = kernelNames(distance);
  const base = vectorsBase(dim);
  const ids = gatherRegion(dim, thread);
  const scores = ids + GATHER_MAX * 4;
  const kernel = kernels[names.gather];
  return {
    base,
    dim,
    stride: dim * 4,
    similarity: kernels[names.pair],
    gather: (q, count) => kernel(q, base, ids, count, dim, scores),
    gatherIds: new Int32Array(memory.buffer, ids, GATHER_MAX),
    gatherScores: new Float32Array(memory.buffer, scores, GATHER_MAX),
  };
}

/** The vector space of a shared memory for an index-building worker thread. */
export function spaceOf(memory: WasmMemory, dim: number, distance: Distance): VectorSpace {
  return makeSpace(instantiateKernels(memory), memory, dim, distance, 1);
}

/** How big an arena's memory starts and how big it may grow. */
export interface ArenaSize {
  /** Slots the memory holds before it first grows (1024 unless given). */
  initialCapacity?: number;
  /** The most 64 KiB pages the memory may grow to ({@link MAX_PAGES}, 4 GiB, unless given). */
  maxPages?: number;
}

/** A collection's vectors. */
export class VectorArena {
  readonly memory: WasmMemory;
  readonly space: VectorSpace;
  private readonly kernels: Kernels;
  private readonly scanName: ReturnType<typeof kernelNames>['scan'];
  private readonly scan: Kernels['scan_dot'];
  private view: Float32Array;
  private capacity: number;
  private readonly maxPages: number;
  /** Slots used so far (every slot below this one holds a vector). */
  length = 0;

  constructor(
    readonly dim: number,
    distance: Distance,
    { initialCapacity = 1024, maxPages = MAX_PAGES }: ArenaSize = {},
  ) {
    const base = vectorsBase(dim);
    this.capacity = initialCapacity;
    this.maxPages = maxPages;
    const pages = Math.ceil((base + initialCapacity * dim * 4) / PAGE);
    this.memory = createSharedMemory(pages, maxPages);
    this.kernels = instantiateKernels(this.memory);
    this.scanName = kernelNames(distance).scan;
    this.scan = this.kernels[this.scanName];
    this.space = makeSpace(this.kernels, this.memory, dim, distance, 0);
    this.view = new Float32Array(this.memory.buffer, base, initialCapacity * dim);
  }

  /** The vectors as floats, slot `s` at `s * dim` (a new view after the memory grows). */
  get data(): Float32Array {
    return this.view;
  }

  /** Byte offset of a slot's vector in the memory. */
  pointer(slot: number): number {
    return this.space.base + slot * this.dim * 4;
  }

  /** Appends a vector and returns its slot; throws, changing nothing, when the memory is full. */
  push(vector: ArrayLike<number>): number {
    if (this.length === this.capacity) this.grow();
    const slot = this.length;
    this.view.set(vector, slot * this.dim);
    this.length = slot + 1;
    return slot;
  }

  /**
   * Grows the memory, when needed, so `count` more vectors fit; throws, leaving every
   * slot as it was, when they cannot.
   */
  reserve(count: number): void {
    while (this.length + count > this.capacity) this.grow();
  }

  /**
   * Moves each slot `s` with `map[s] >= 0` to slot `map[s]` and drops the others, leaving
   * `length` slots. The map must keep the order and never move a slot up (a vacuum's map),
   * so copying forwards never overwrites a slot not yet moved. The memory keeps its size
   * (a WebAssembly memory cannot shrink); later pushes reuse the space.
   */
  compact(map: Int32Array, length: number): void {
    const { dim, view } = this;
    let slot = 0;
    while (slot < this.length) {
      const to = map[slot]!;
      if (to < 0) {
        slot++;
        continue;
      }
      // A run of kept slots moves in one copy.
      let end = slot + 1;
      while (end < this.length && map[end] === to + (end - slot)) end++;
      if (to !== slot) view.copyWithin(to * dim, slot * dim, end * dim);
      slot = end;
    }
    this.length = length;
  }

  /** A copy of one slot's vector. */
  get(slot: number): Float32Array {
    return this.view.slice(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Doubles the capacity, or takes what is left below the page cap when that is less. */
  private grow(): void {
    const fits = Math.floor((this.maxPages * PAGE - this.space.base) / (this.dim * 4));
    const capacity = Math.min(this.capacity * 2, fits);
    if (capacity <= this.capacity) {
      const cap = this.maxPages === MAX_PAGES ? '4 GiB' : `${this.maxPages} pages`;
      throw new Error(`collection vectors exceed the ${cap} a memory can hold`);
    }
    const needed = Math.ceil((this.space.base + capacity * this.dim * 4) / PAGE);
    const current = this.memory.buffer.byteLength / PAGE;
    if (needed > current) this.memory.grow(needed - current);
    this.capacity = capacity;
    this.view = new Float32Array(this.memory.buffer, this.space.base, capacity * this.dim);
  }

  /** Copies a query into the scratch space; returns its byte offset. */
  placeQuery(query: Float32Array): number {
    new Float32Array(this.memory.buffer, 0, this.dim).set(query);
    return 0;
  }

  /**
   * Scores the query at `queryPointer` against slots `from .. from + count - 1`
   * (at most {@link SCAN_CHUNK}); returns the similarities, valid until the next scan.
   */
  scanScores(queryPointer: number, from: number, count: number): Float32Array {
    const out = scanOutput(this.dim);
    this.scan(queryPointer, this.pointer(from), count, this.dim, out);
    return new Float32Array(this.memory.buffer, out, count);
  }

  /**
   * Scores the query at `queryPointer` against slots `0 .. end - 1` and hands `visit` the
   * similarities of consecutive runs of slots, in slot order (`scores[i]` is slot
   * `from + i`, valid during the call). A scan of {@link HELP_FROM_BYTES} or more gives
   * its upper half to the scan helper thread and scores the lower half meanwhile.
   */
  scanAll(
    queryPointer: number,
    end: number,
    visit: (scores: Float32Array, from: number) => void,
  ): void {
    const stride = this.dim * 4;
    let split = end;
    if (end * stride >= HELP_FROM_BYTES) {
      const half = Math.ceil(end / 2 / SCAN_CHUNK) * SCAN_CHUNK;
      const task = {
        memory: this.memory,
        kernel: this.scanName,
        query: queryPointer,
        base: this.space.base,
        from: half,
        count: end - half,
        dim: this.dim,
        out: helperOutput(this.dim),
      };
      if (half < end && scanHelper().offload(task)) split = half;
    }
    const started = performance.now();
    for (let from = 0; from < split; from += SCAN_CHUNK)
      visit(this.scanScores(queryPointer, from, Math.min(SCAN_CHUNK, split - from)), from);
    if (split === end) return;
    // Waits about as long as this thread's part took: past that, scoring it here is quicker.
    const patience = Math.max(HELP_PATIENCE_MS, performance.now() - started);
    const helped = scanHelper().collect(end - split, patience);
    if (helped) return visit(helped, split);
    for (let from = split; from < end; from += SCAN_CHUNK)
      visit(this.scanScores(queryPointer, from, Math.min(SCAN_CHUNK, end - from)), from);
  }

  /** Tells the scan helper to let go of this memory (the collection is closed). */
  close(): void {
    scanHelper().release(this.memory);
  }

  /** Similarity of a slot and the vector at a byte offset. */
  similarity(slot: number, pointer: number): number {
    return this.space.similarity(this.pointer(slot), pointer, this.dim);
  }
}
