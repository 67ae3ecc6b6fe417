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
const i32Sub = [0x6b];
const i32Mul = [0x6c];
const i32RemU = [0x70];
const i32And = [0x71];
const i32Shl = [0x74];
const i32GeU = [0x4f];
const i32LtU = [0x49];
const i32Xor = [0x73];
const i32Store = [0x36, 2, 0];
const select = [0x1b];
const f32Load = [0x2a, 2, 0];
const f32Store = [0x38, 2, 0];
/** `f32.store` at a constant byte offset from the address on the stack. */
const f32StoreAt = (offset: number) => [0x38, 2, ...uleb(offset)];
const f32Add = [0x92];
const f32Sub = [0x93];
const f32Mul = [0x94];
const f32Abs = [0x8b];
const f32Neg = [0x8c];
const i32Load = [0x28, 2, 0];
/** `i32.load` at a constant byte offset from the address on the stack. */
const i32LoadAt = (offset: number) => [0x28, 2, ...uleb(offset)];
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

/** Independent accumulators of four floats each a kernel sums into (see {@link kernelBody}). */
const CHAINS = 3;

/**
 * The body of a kernel over one vector, `kernel(a, q, n) -> f32`, or two,
 * `pair(a, b, q, n, out)` writing both similarities as floats at `out`. Each vector is summed
 * `4 * CHAINS` floats at a time into {@link CHAINS} independent accumulators (one would chain
 * every add on the previous one), then four at a time, then the tail one float at a time:
 * in the same order both ways, so the pair's scores are the single kernel's to the bit.
 *
 * Four float lanes load 16 bytes at a time, and two loads a cycle (one of the vector, one of
 * `q`, for each four floats) are what bounds the single kernel. The pair loads each four
 * floats of `q` once for both vectors: a quarter fewer loads a vector. Three accumulators,
 * not four, keep the pair's six, `q`'s floats and the loaded ones in the sixteen registers
 * (with eight, the compiled pair spilled to the stack and was slower than two singles).
 */
function kernelBody(kind: Kind, vectors: 1 | 2): number[] {
  const pair = vectors === 2;
  const vecs = pair ? [0, 1] : [0];
  const q = pair ? 2 : 1;
  const n = pair ? 3 : 2;
  const out = 4;
  // Locals after the parameters: i32 i, end, end4; f32 one sum per vector, qs, ds; v128
  // accumulators (CHAINS per vector), qv, d.
  const first = pair ? 5 : 3;
  const [i, endMain, end4] = [first, first + 1, first + 2];
  const sum = (v: number) => first + 3 + v;
  const qs = first + 3 + vectors;
  const ds = qs + 1;
  const acc = (v: number, c: number) => ds + 1 + v * CHAINS + c;
  const qv = acc(vectors - 1, CHAINS - 1) + 1;
  const d = qv + 1;
  const vectorOp = {
    dot: f32x4Mul,
    l2: [f32x4Sub, localTee(d), localGet(d), f32x4Mul].flat(),
    l1: [f32x4Sub, f32x4Abs].flat(),
  }[kind];
  const scalarOp = {
    dot: f32Mul,
    l2: [f32Sub, localTee(ds), localGet(ds), f32Mul].flat(),
    l1: [f32Sub, f32Abs].flat(),
  }[kind];
  // accumulator += op(the vector's four floats loaded by `load`, q's in qv)
  const step = (into: number, v: number, load: number[]) => [
    localGet(into),
    floatAddress(v, i),
    load,
    localGet(qv),
    vectorOp,
    f32x4Add,
    localSet(into),
  ];
  const chains = Array.from({ length: CHAINS }, (_, c) => [
    floatAddress(q, i),
    v128LoadAt(16 * c),
    localSet(qv),
    ...vecs.map((v) => step(acc(v, c), v, v128LoadAt(16 * c))),
  ]);
  // acc(v, 0) = ((acc(v, 0) + acc(v, 1)) + acc(v, 2)) ...
  const combine = vecs.map((v) => [
    localGet(acc(v, 0)),
    Array.from({ length: CHAINS - 1 }, (_, c) => [localGet(acc(v, c + 1)), f32x4Add]),
    localSet(acc(v, 0)),
  ]);
  // sum(v) = acc(v, 0)[0] + [1] + [2] + [3]
  const lanes = vecs.map((v) => [
    localGet(acc(v, 0)),
    f32x4ExtractLane(0),
    [1, 2, 3].map((lane) => [localGet(acc(v, 0)), f32x4ExtractLane(lane), f32Add]),
    localSet(sum(v)),
  ]);
  const scalar = vecs.map((v) => [
    localGet(sum(v)),
    floatAddress(v, i),
    f32Load,
    localGet(qs),
    scalarOp,
    f32Add,
    localSet(sum(v)),
  ]);
  const advance = (by: number) => [localGet(i), i32Const(by), i32Add, localSet(i)];
  const loopWhileBelow = (limit: number, body: unknown[]) => [
    block,
    loop,
    localGet(i),
    localGet(limit),
    i32GeU,
    brIf(1),
    body,
    br(0),
    end,
    end,
  ];
  // distances are negated into similarities
  const result = (v: number) => [localGet(sum(v)), kind === 'dot' ? [] : f32Neg];
  const code = [
    // end = n - n % (4 * CHAINS); end4 = n & ~3
    localGet(n),
    localGet(n),
    i32Const(4 * CHAINS),
    i32RemU,
    i32Sub,
    localSet(endMain),
    localGet(n),
    i32Const(-4),
    i32And,
    localSet(end4),
    loopWhileBelow(endMain, [chains, advance(4 * CHAINS)]),
    combine,
    loopWhileBelow(end4, [
      floatAddress(q, i),
      v128Load,
      localSet(qv),
      vecs.map((v) => step(acc(v, 0), v, v128Load)),
      advance(4),
    ]),
    lanes,
    loopWhileBelow(n, [floatAddress(q, i), f32Load, localSet(qs), scalar, advance(1)]),
    pair
      ? [localGet(out), result(0), f32Store, localGet(out), result(1), f32StoreAt(4)]
      : result(0),
    end,
  ].flat(Infinity as 1) as number[];
  const locals = [3, 3, I32, vectors + 2, F32, vectors * CHAINS + 2, V128];
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
function gatherBody(fn: number, pairFn: number): number[] {
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
  // base + ids[j + offset / 4] * stride: the row of a listed slot
  const rowOf = (offset: number) =>
    [localGet(1), floatAddress(2, 6), i32LoadAt(offset), localGet(7), i32Mul, i32Add].flat();
  const code = [
    localGet(4),
    i32Const(2),
    i32Shl,
    localSet(7),
    ...touch,
    // while (j + 1 < count) { pair(row(ids[j]), row(ids[j + 1]), q, dim, &out[j]); j += 2 }
    block,
    loop,
    localGet(6),
    i32Const(1),
    i32Add,
    localGet(3),
    i32GeU,
    brIf(1),
    ...rowOf(0),
    ...rowOf(4),
    localGet(0),
    localGet(4),
    floatAddress(5, 6),
    call(pairFn),
    localGet(6),
    i32Const(2),
    i32Add,
    localSet(6),
    br(0),
    end,
    end,
    // an odd one last: out[j] = kernel(row(ids[j]), q, dim)
    block,
    localGet(6),
    localGet(3),
    i32GeU,
    brIf(0),
    floatAddress(5, 6),
    ...rowOf(0),
    localGet(0),
    localGet(4),
    call(fn),
    f32Store,
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
  const functions = [12, 0, 0, 0, 1, 1, 1, 2, 2, 2, 1, 1, 1];
  const exports = [EXPORTS.length, ...EXPORTS.flatMap((n, i) => [...name(n), 0x00, i])];
  const bodies = [
    12,
    ...kernelBody('dot', 1),
    ...kernelBody('l2', 1),
    ...kernelBody('l1', 1),
    ...scanBody(0),
    ...scanBody(1),
    ...scanBody(2),
    ...gatherBody(0, 9),
    ...gatherBody(1, 10),
    ...gatherBody(2, 11),
    ...kernelBody('dot', 2),
    ...kernelBody('l2', 2),
    ...kernelBody('l1', 2),
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

/** The kernels' compiled module (compiled once per thread), for a thread to instantiate. */
export function kernelModule(): object {
  compiled ??= compileModule(kernelModuleBytes());
  return compiled;
}

/** Instantiates the kernels on a shared memory (compiled once per thread). */
export function instantiateKernels(memory: WasmMemory): Kernels {
  return instantiateOn(kernelModule(), memory) as Kernels;
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
