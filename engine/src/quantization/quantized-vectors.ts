/**
 * The int8 codes of a collection's indexed vectors, one row per slot in a shared
 * WebAssembly memory with the int8 kernels on it, so the build worker writes the rows the
 * main thread's graph walk then scores. A row is the codes zero-padded to 16 bytes, then
 * the float32 correction and padding (16 bytes). The first bytes are scratch: the encoded
 * query row, then the neighbour list a gather scores and the scores it writes. Only the
 * main thread grows the memory, and only before a build, so a worker's view always covers
 * the rows it writes.
 */
import type { Distance } from '../distance.js';
import { createSharedMemory } from '../simd/kernels.js';
import type { WasmMemory } from '../simd/kernels.js';
import { instantiateInt8Kernels } from '../simd/int8-kernels.js';
import { GATHER_MAX } from '../store/vector-arena.js';
import type { VectorSpace } from '../store/vector-arena.js';
import { ScalarQuantizer, int8KindOf } from './scalar.js';
import type { ScalarBounds } from './scalar.js';

const PAGE = 65536;

/** Where a memory's pieces lie for a dimension. */
function layout(dim: number): { codes: number; stride: number; ids: number; base: number } {
  const codes = Math.ceil(dim / 16) * 16;
  const stride = codes + 16;
  const ids = stride;
  const base = Math.ceil((ids + GATHER_MAX * 8) / 64) * 64;
  return { codes, stride, ids, base };
}

/** A collection's quantized rows. */
export class QuantizedVectors {
  readonly memory: WasmMemory;
  /** The graph-walk view of the rows: byte offsets, row stride and the int8 kernels. */
  readonly space: VectorSpace;
  private readonly quantizer: ScalarQuantizer;
  private readonly codes: number;
  private readonly stride: number;
  private readonly base: number;
  private capacity: number;

  /**
   * Rows for `capacity` slots in a new memory, or (in a worker) over an existing one that
   * already holds them.
   */
  constructor(
    readonly dim: number,
    distance: Distance,
    readonly bounds: ScalarBounds,
    capacity: number,
    memory?: WasmMemory,
  ) {
    const { codes, stride, ids, base } = layout(dim);
    this.codes = codes;
    this.stride = stride;
    this.base = base;
    this.memory = memory ?? QuantizedVectors.allocate(dim, capacity);
    this.capacity = Math.floor((this.memory.buffer.byteLength - base) / stride);
    const kind = int8KindOf(distance);
    this.quantizer = new ScalarQuantizer(bounds, dim, kind);
    const kernels = instantiateInt8Kernels(this.memory);
    const score = kernels[`score_${kind}`];
    const gather = kernels[`gather_${kind}`];
    const mul = this.quantizer.multiplier;
    const scores = ids + GATHER_MAX * 4;
    this.space = {
      base,
      dim,
      stride,
      similarity: (a, b) => score(a, b, codes, mul),
      gather: (q, count) => gather(q, base, stride, ids, count, codes, mul, scores),
      gatherIds: new Int32Array(this.memory.buffer, ids, GATHER_MAX),
      gatherScores: new Float32Array(this.memory.buffer, scores, GATHER_MAX),
    };
  }

  /** A memory for the rows of `capacity` slots of `dim` dimensions, for a worker to fill. */
  static allocate(dim: number, capacity: number): WasmMemory {
    const { stride, base } = layout(dim);
    return createSharedMemory(Math.ceil((base + Math.max(1, capacity) * stride) / PAGE));
  }

  /** Grows the memory so rows for slots below `slots` fit (main thread, before a build). */
  reserve(slots: number): void {
    if (slots <= this.capacity) return;
    let capacity = this.capacity;
    while (capacity < slots) capacity *= 2;
    const needed = Math.ceil((this.base + capacity * this.stride) / PAGE);
    const current = this.memory.buffer.byteLength / PAGE;
    if (needed > current) this.memory.grow(needed - current);
    this.capacity = capacity;
  }

  /** Encodes the vector `data[slot * dim ..]` into the slot's row. */
  encode(slot: number, data: Float32Array): void {
    if (slot >= this.capacity) throw new Error(`quantized row ${slot} is beyond the memory`);
    this.writeRow(this.base + slot * this.stride, data.subarray(slot * this.dim));
  }

  /** Encodes a query into the scratch row; returns its byte offset for the space's kernels. */
  placeQuery(vector: Float32Array): number {
    this.writeRow(0, vector);
    return 0;
  }

  private writeRow(at: number, vector: ArrayLike<number>): void {
    const bytes = new Uint8Array(this.memory.buffer);
    const correction = this.quantizer.encode(vector, bytes, at);
    new Float32Array(this.memory.buffer, at + this.codes, 1)[0] = correction;
  }

  /**
   * Follows a vacuum over the rows of slots below `rows`: slot `s` moves to `map[s]` when
   * that is not -1 (the map keeps order and never moves a slot up, as the arena's compact).
   */
  compact(map: Int32Array, rows: number): void {
    const bytes = new Uint8Array(this.memory.buffer);
    const { base, stride } = this;
    for (let slot = 0; slot < rows; slot++) {
      const to = map[slot]!;
      if (to >= 0 && to !== slot) {
        bytes.copyWithin(base + to * stride, base + slot * stride, base + (slot + 1) * stride);
      }
    }
  }
}
