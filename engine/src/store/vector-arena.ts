/**
 * Fixed-width float32 vectors in one growable shared WebAssembly memory, one slot per
 * stored vector, with the SIMD distance kernels instantiated on it. The memory is shared,
 * so a worker thread builds the HNSW graph from the same bytes without a copy; a slot is
 * written once and never changed, so the worker may read while the main thread appends.
 * The first bytes are the main thread's scratch space: the query vector and the scores a
 * scan writes.
 */
import type { Distance } from '../distance.js';
import { MAX_PAGES, createSharedMemory, instantiateKernels, kernelNames } from '../simd/kernels.js';
import type { Kernels, WasmMemory } from '../simd/kernels.js';

const PAGE = 65536;
/** Slots scored per kernel call in a scan. */
export const SCAN_CHUNK = 4096;

/** Where the vectors of a memory start, after the scratch space for `dim`-float queries. */
export function vectorsBase(dim: number): number {
  return Math.ceil((dim * 4 + SCAN_CHUNK * 4 + 64) / PAGE) * PAGE;
}

/** What an index needs to compare vectors: where slot 0 is, the width, and the kernel. */
export interface VectorSpace {
  base: number;
  dim: number;
  /** Similarity of the vectors at two byte offsets (higher is better). */
  similarity: (a: number, b: number, dim: number) => number;
}

/** The vector space of a shared memory, in whatever thread calls this. */
export function spaceOf(memory: WasmMemory, dim: number, distance: Distance): VectorSpace {
  const kernels = instantiateKernels(memory);
  return { base: vectorsBase(dim), dim, similarity: kernels[kernelNames(distance).pair] };
}

/** A collection's vectors. */
export class VectorArena {
  readonly memory: WasmMemory;
  readonly space: VectorSpace;
  private readonly kernels: Kernels;
  private readonly scan: Kernels['scan_dot'];
  private view: Float32Array;
  private capacity: number;
  /** Slots used so far (every slot below this one holds a vector). */
  length = 0;

  constructor(
    readonly dim: number,
    distance: Distance,
    initialCapacity = 1024,
  ) {
    const base = vectorsBase(dim);
    this.capacity = initialCapacity;
    const pages = Math.ceil((base + initialCapacity * dim * 4) / PAGE);
    this.memory = createSharedMemory(pages);
    this.kernels = instantiateKernels(this.memory);
    const names = kernelNames(distance);
    this.scan = this.kernels[names.scan];
    this.space = { base, dim, similarity: this.kernels[names.pair] };
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

  /** Appends a vector and returns its slot. */
  push(vector: ArrayLike<number>): number {
    if (this.length === this.capacity) this.grow(this.capacity * 2);
    const slot = this.length++;
    this.view.set(vector, slot * this.dim);
    return slot;
  }

  /** A copy of one slot's vector. */
  get(slot: number): Float32Array {
    return this.view.slice(slot * this.dim, (slot + 1) * this.dim);
  }

  private grow(capacity: number): void {
    const needed = Math.ceil((this.space.base + capacity * this.dim * 4) / PAGE);
    const current = this.memory.buffer.byteLength / PAGE;
    if (needed > MAX_PAGES)
      throw new Error('collection vectors exceed the 4 GiB a memory can hold');
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
    const out = this.dim * 4 + 64 - ((this.dim * 4) % 16);
    this.scan(queryPointer, this.pointer(from), count, this.dim, out);
    return new Float32Array(this.memory.buffer, out, count);
  }

  /** Similarity of a slot and the vector at a byte offset. */
  similarity(slot: number, pointer: number): number {
    return this.space.similarity(this.pointer(slot), pointer, this.dim);
  }
}
