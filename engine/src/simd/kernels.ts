/**
 * Distance kernels in WebAssembly with 128-bit SIMD (four float32 lanes), assembled here
 * from opcodes so no toolchain is needed. They read vectors straight out of a shared
 * WebAssembly memory, the one a collection's vectors live in, so the main thread and an
 * index-building worker run the same code on the same bytes. Like Qdrant's, they sum in
 * float32. Every kernel returns a similarity (higher is better): the dot product, the
 * negated squared Euclidean distance, the negated Manhattan distance.
 */
import type { Distance } from '../distance.js';

/** A shared WebAssembly memory (typed here: the project's TypeScript libs lack the WebAssembly namespace). */
export interface WasmMemory {
  readonly buffer: SharedArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number; shared: true }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A new shared memory of `initial` pages that may grow to `maximum` (at most {@link MAX_PAGES}). */
export function createSharedMemory(initial: number, maximum = MAX_PAGES): WasmMemory {
  return new wasm.Memory({ initial, maximum, shared: true });
}

/** The kernels of one instance, on one memory. Pointers are byte offsets into it. */
export interface Kernels {
  /** Similarity of the `dim`-float vectors at `a` and `b`. */
  dot(a: number, b: number, dim: number): number;
  l2(a: number, b: number, dim: number): number;
  l1(a: number, b: number, dim: number): number;
  /** Writes the similarity of `q` and each of `count` vectors from `base` as floats at `out`. */
  scan_dot(q: number, base: number, count: number, dim: number, out: number): void;
  scan_l2(q: number, base: number, count: number, dim: number, out: number): void;
  scan_l1(q: number, base: number, count: number, dim: number, out: number): void;
  /**
   * Writes the similarity of `q` and each of the `count` vectors whose slot numbers are the
   * int32s at `ids` (slot `s` at `base + s * dim * 4`) as floats at `out`: one call for a
   * graph node's neighbours instead of one per neighbour.
   */
  gather_dot(q: number, base: number, ids: number, count: number, dim: number, out: number): void;
  gather_l2(q: number, base: number, ids: number, count: number, dim: number, out: number): void;
  gather_l1(q: number, base: number, ids: number, count: number, dim: number, out: number): void;
}

/** The largest memory a collection may grow to, in 64 KiB pages (wasm32's 4 GiB). */
export const MAX_PAGES = 65536;

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

/** Signed LEB128, as WebAssembly encodes integer immediates. */
export function leb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Unsigned LEB128, as WebAssembly encodes sizes and indices. */
export function uleb(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return out;
}

const simd = (op: number) => [0xfd, ...uleb(op)];
// Instructions, named as in the WebAssembly text format.
const localGet = (i: number) => [0x20, i];
const localSet = (i: number) => [0x21, i];
const localTee = (i: number) => [0x22, i];
const i32Const = (v: number) => [0x41, ...leb(v)];
const block = [0x02, 0x40];
const loop = [0x03, 0x40];
const end = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const call = (fn: number) => [0x10, fn];
const i32Add = [0x6a];
const i32Mul = [0x6c];
const i32And = [0x71];
const i32Shl = [0x74];
const i32GeU = [0x4f];
const i32LtU = [0x49];
const i32Xor = [0x73];
const i32Store = [0x36, 2, 0];
const select = [0x1b];
const f32Load = [0x2a, 2, 0];
const f32Store = [0x38, 2, 0];
const f32Add = [0x92];
const f32Sub = [0x93];
const f32Mul = [0x94];
const f32Abs = [0x8b];
const f32Neg = [0x8c];
const i32Load = [0x28, 2, 0];
const v128Load = [...simd(0x00), 2, 0];
/** `v128.load` at a constant byte offset from the address on the stack. */
const v128LoadAt = (offset: number) => [...simd(0x00), 2, ...uleb(offset)];
const f32x4Add = simd(0xe4);
const f32x4Sub = simd(0xe5);
const f32x4Mul = simd(0xe6);
const f32x4Abs = simd(0xe0);
const f32x4ExtractLane = (n: number) => [...simd(0x1f), n];
/** `ptr + index * 4`, the address of float `index` of the vector at `ptr`. */
const floatAddress = (ptr: number, index: number) =>
  [localGet(ptr), localGet(index), i32Const(2), i32Shl, i32Add].flat();

type Kind = 'dot' | 'l2' | 'l1';

/**
 * `kernel(a, b, n) -> f32`: sixteen floats at a time into four independent accumulators
 * (one would chain every add on the previous one), then four at a time, then the tail one
 * float at a time. Locals: 0 a, 1 b, 2 n, 3 i, 4 end4, 5 acc (v128), 6 d (v128), 7 s,
 * 8 ds, 9 end16, 10..12 acc1..acc3 (v128).
 */
function kernelBody(kind: Kind): number[] {
  const vectorOp = {
    dot: f32x4Mul,
    l2: [f32x4Sub, localTee(6), localGet(6), f32x4Mul].flat(),
    l1: [f32x4Sub, f32x4Abs].flat(),
  }[kind];
  const scalarOp = {
    dot: f32Mul,
    l2: [f32Sub, localTee(8), localGet(8), f32Mul].flat(),
    l1: [f32Sub, f32Abs].flat(),
  }[kind];
  const accumulators = [5, 10, 11, 12];
  // acc_k += op(a[i + 4k ..], b[i + 4k ..]) for k = 0..3
  const sixteen = accumulators.flatMap((acc, k) => [
    localGet(acc),
    floatAddress(0, 3),
    v128LoadAt(16 * k),
    floatAddress(1, 3),
    v128LoadAt(16 * k),
    vectorOp,
    f32x4Add,
    localSet(acc),
  ]);
  const code = [
    // end16 = n & ~15; end4 = n & ~3
    localGet(2),
    i32Const(-16),
    i32And,
    localSet(9),
    localGet(2),
    i32Const(-4),
    i32And,
    localSet(4),
    block,
    loop,
    localGet(3),
    localGet(9),
    i32GeU,
    brIf(1),
    ...sixteen,
    localGet(3),
    i32Const(16),
    i32Add,
    localSet(3),
    br(0),
    end,
    end,
    // acc = (acc + acc1) + (acc2 + acc3)
    localGet(5),
    localGet(10),
    f32x4Add,
    localGet(11),
    localGet(12),
    f32x4Add,
    f32x4Add,
    localSet(5),
    // while (i < end4) { acc += op(a[i..i+4], b[i..i+4]); i += 4 }
    block,
    loop,
    localGet(3),
    localGet(4),
    i32GeU,
    brIf(1),
    localGet(5),
    floatAddress(0, 3),
    v128Load,
    floatAddress(1, 3),
    v128Load,
    vectorOp,
    f32x4Add,
    localSet(5),
    localGet(3),
    i32Const(4),
    i32Add,
    localSet(3),
    br(0),
    end,
    end,
    // s = acc[0] + acc[1] + acc[2] + acc[3]
    localGet(5),
    f32x4ExtractLane(0),
    localGet(5),
    f32x4ExtractLane(1),
    f32Add,
    localGet(5),
    f32x4ExtractLane(2),
    f32Add,
    localGet(5),
    f32x4ExtractLane(3),
    f32Add,
    localSet(7),
    // while (i < n) { s += op(a[i], b[i]); i += 1 }
    block,
    loop,
    localGet(3),
    localGet(2),
    i32GeU,
    brIf(1),
    localGet(7),
    floatAddress(0, 3),
    f32Load,
    floatAddress(1, 3),
    f32Load,
    scalarOp,
    f32Add,
    localSet(7),
    localGet(3),
    i32Const(1),
    i32Add,
    localSet(3),
    br(0),
    end,
    end,
    // distances are negated into similarities
    localGet(7),
    kind === 'dot' ? [] : f32Neg,
    end,
  ].flat(2);
  const locals = [5, 2, I32, 2, V128, 2, F32, 1, I32, 3, V128];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

/**
 * `scan(q, base, count, dim, out)`: out[j] = kernel(base + j * dim * 4, q, dim).
 * Locals: 0 q, 1 base, 2 count, 3 dim, 4 out, 5 j, 6 stride.
 */
function scanBody(fn: number): number[] {
  const code = [
    localGet(3),
    i32Const(2),
    i32Shl,
    localSet(6),
    block,
    loop,
    localGet(5),
    localGet(2),
    i32GeU,
    brIf(1),
    floatAddress(4, 5),
    localGet(1),
    localGet(5),
    localGet(6),
    i32Mul,
    i32Add,
    localGet(0),
    localGet(3),
    call(fn),
    f32Store,
    localGet(5),
    i32Const(1),
    i32Add,
    localSet(5),
    br(0),
    end,
    end,
    end,
  ].flat();
  const locals = [1, 2, I32];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

/** Bytes of each vector a gather reads ahead (see {@link gatherBody}). */
const TOUCH_BYTES = 1024;

/** The locals {@link readAhead} reads and the ones it may overwrite. */
export interface ReadAheadLocals {
  base: number;
  ids: number;
  count: number;
  /** Bytes from one slot's row to the next (at least 4). */
  stride: number;
  out: number;
  /** Index into `ids`: left at 0. */
  j: number;
  /** Scratch i32 locals. */
  row: number;
  offset: number;
  xor: number;
  end: number;
}

/**
 * Code that reads one word of each cache line of the first {@link TOUCH_BYTES} bytes of
 * the row of every slot listed at `ids`, xors them into the i32 at `out` (the caller then
 * writes its scores there) and leaves `j` at 0 (see {@link gatherBody}).
 */
export function readAhead(l: ReadAheadLocals): number[] {
  return [
    // end = min(stride, TOUCH_BYTES)
    localGet(l.stride),
    i32Const(TOUCH_BYTES),
    localGet(l.stride),
    i32Const(TOUCH_BYTES),
    i32LtU,
    select,
    localSet(l.end),
    block,
    loop,
    localGet(l.j),
    localGet(l.count),
    i32GeU,
    brIf(1),
    localGet(l.base),
    floatAddress(l.ids, l.j),
    i32Load,
    localGet(l.stride),
    i32Mul,
    i32Add,
    localSet(l.row),
    i32Const(0),
    localSet(l.offset),
    block,
    loop,
    localGet(l.offset),
    localGet(l.end),
    i32GeU,
    brIf(1),
    localGet(l.xor),
    localGet(l.row),
    localGet(l.offset),
    i32Add,
    i32Load,
    i32Xor,
    localSet(l.xor),
    localGet(l.offset),
    i32Const(64),
    i32Add,
    localSet(l.offset),
    br(0),
    end,
    end,
    localGet(l.j),
    i32Const(1),
    i32Add,
    localSet(l.j),
    br(0),
    end,
    end,
    localGet(l.out),
    localGet(l.xor),
    i32Store,
    i32Const(0),
    localSet(l.j),
  ].flat();
}

/**
 * `gather(q, base, ids, count, dim, out)`: out[j] = kernel(base + ids[j] * dim * 4, q, dim).
 *
 * A graph walk's neighbours lie anywhere in memory, so scoring them one after another
 * waits for one vector's cache misses at a time. The gather first reads one word of each
 * cache line of every listed vector (its first {@link TOUCH_BYTES} bytes), so the misses
 * of all of them are in flight together, then scores them from cache: about 1.6x the
 * search QPS on 100k 128-d vectors (bench/README.md, engine-vs-qdrant-edge.ts and
 * gather-kernel.ts). Reading more of a wide vector ahead did no better than its first
 * 1 KiB. The words read are xored into `out[0]`, which the scoring then overwrites (with
 * `count` 0, nothing reads it), so the reads are not dead code.
 * Locals: 0 q, 1 base, 2 ids, 3 count, 4 dim, 5 out, 6 j, 7 stride, 8 vector, 9 offset,
 * 10 xor, 11 touch end.
 */
function gatherBody(fn: number): number[] {
  const touch = readAhead({
    base: 1,
    ids: 2,
    count: 3,
    stride: 7,
    out: 5,
    j: 6,
    row: 8,
    offset: 9,
    xor: 10,
    end: 11,
  });
  const code = [
    localGet(4),
    i32Const(2),
    i32Shl,
    localSet(7),
    ...touch,
    block,
    loop,
    localGet(6),
    localGet(3),
    i32GeU,
    brIf(1),
    floatAddress(5, 6),
    localGet(1),
    floatAddress(2, 6),
    i32Load,
    localGet(7),
    i32Mul,
    i32Add,
    localGet(0),
    localGet(4),
    call(fn),
    f32Store,
    localGet(6),
    i32Const(1),
    i32Add,
    localSet(6),
    br(0),
    end,
    end,
    end,
  ].flat();
  const locals = [1, 6, I32];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

/** A module section: its id, its size, its content. */
export function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

/** A name as a module encodes it: its byte length, then its UTF-8 bytes. */
export function name(text: string): number[] {
  const bytes = [...Buffer.from(text)];
  return [...uleb(bytes.length), ...bytes];
}

const EXPORTS = [
  'dot',
  'l2',
  'l1',
  'scan_dot',
  'scan_l2',
  'scan_l1',
  'gather_dot',
  'gather_l2',
  'gather_l1',
];

/** The module's bytes. */
export function kernelModuleBytes(): Uint8Array {
  const types = [
    3,
    ...[0x60, 3, I32, I32, I32, 1, F32],
    ...[0x60, 5, I32, I32, I32, I32, I32, 0],
    ...[0x60, 6, I32, I32, I32, I32, I32, I32, 0],
  ];
  const memoryImport = [1, ...name('env'), ...name('memory'), 0x02, 0x03, 1, ...uleb(MAX_PAGES)];
  const functions = [9, 0, 0, 0, 1, 1, 1, 2, 2, 2];
  const exports = [EXPORTS.length, ...EXPORTS.flatMap((n, i) => [...name(n), 0x00, i])];
  const bodies = [
    9,
    ...kernelBody('dot'),
    ...kernelBody('l2'),
    ...kernelBody('l1'),
    ...scanBody(0),
    ...scanBody(1),
    ...scanBody(2),
    ...gatherBody(0),
    ...gatherBody(1),
    ...gatherBody(2),
  ];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, types),
    ...section(2, memoryImport),
    ...section(3, functions),
    ...section(7, exports),
    ...section(10, bodies),
  ]);
}

/** Compiles a module's bytes. */
export function compileModule(bytes: Uint8Array): object {
  return new wasm.Module(bytes);
}

/** Instantiates a compiled module whose one import is `env.memory`; returns its exports. */
export function instantiateOn(module: object, memory: WasmMemory): unknown {
  return new wasm.Instance(module, { env: { memory } }).exports;
}

let compiled: object | undefined;

/** Instantiates the kernels on a shared memory (compiled once per thread). */
export function instantiateKernels(memory: WasmMemory): Kernels {
  compiled ??= compileModule(kernelModuleBytes());
  return instantiateOn(compiled, memory) as Kernels;
}

/** The kernel and scan names of a distance (cosine vectors are normalised: a dot product). */
export function kernelNames(distance: Distance): {
  pair: 'dot' | 'l2' | 'l1';
  scan: `scan_${'dot' | 'l2' | 'l1'}`;
  gather: `gather_${'dot' | 'l2' | 'l1'}`;
} {
  const pair = distance === 'Euclid' ? 'l2' : distance === 'Manhattan' ? 'l1' : 'dot';
  return { pair, scan: `scan_${pair}`, gather: `gather_${pair}` };
}
