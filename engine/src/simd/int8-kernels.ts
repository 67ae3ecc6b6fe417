/**
 * Distance kernels over scalar-quantized vectors (one unsigned byte per dimension), in
 * WebAssembly SIMD assembled here like the float kernels (kernels.ts). A row is `n` code
 * bytes (`n` a multiple of 16, zero-padded) followed by a float32 correction; the query is
 * encoded into a row of the same shape. Bytes are widened to 16 bits and multiplied pairwise
 * into 32-bit lanes (`i32x4.dot_i16x8_s`), sixteen dimensions per step, so a kernel reads a
 * quarter of the bytes a float kernel reads. The integer sums are exact up to 33,000
 * dimensions (255² · 2 per lane pair stays below 2³¹ per 16 bytes times n / 16).
 */
import { compileModule, instantiateOn, leb, name, readAhead, section, uleb } from './kernels.js';
import type { WasmMemory } from './kernels.js';

/** The int8 kernels of one instance, on one memory. Pointers are byte offsets into it. */
export interface Int8Kernels {
  /** Σ a_i b_i over `n` code bytes. */
  dot_u8(a: number, b: number, n: number): number;
  /** Σ (a_i - b_i)². */
  l2_u8(a: number, b: number, n: number): number;
  /** Σ |a_i - b_i|. */
  l1_u8(a: number, b: number, n: number): number;
  /** `raw(a, b) * mul + corr(a) + corr(b)`, the corrections read after each row's codes. */
  score_dot(a: number, b: number, n: number, mul: number): number;
  score_l2(a: number, b: number, n: number, mul: number): number;
  score_l1(a: number, b: number, n: number, mul: number): number;
  /**
   * Writes the score of query row `q` against each of the `count` rows whose slot numbers
   * are the int32s at `ids` (slot `s` at `base + s * stride`) as floats at `out`.
   */
  gather_dot(
    q: number,
    base: number,
    stride: number,
    ids: number,
    count: number,
    n: number,
    mul: number,
    out: number,
  ): void;
  gather_l2: Int8Kernels['gather_dot'];
  gather_l1: Int8Kernels['gather_dot'];
}

/** The largest dimension whose integer sums cannot overflow a 32-bit lane. */
export const INT8_MAX_DIM = 32_768;

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

const simd = (op: number) => [0xfd, ...uleb(op)];
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
const i32Shl = [0x74];
const i32GeU = [0x4f];
const i32Load = [0x28, 2, 0];
const f32Load = [0x2a, 2, 0];
const f32Store = [0x38, 2, 0];
const f32Add = [0x92];
const f32Mul = [0x94];
const f32ConvertI32S = [0xb2];
const v128Load = [...simd(0x00), 0, 0];
const i32x4ExtractLane = (n: number) => [...simd(0x1b), n];
const i16x8ExtendLowU8 = simd(0x89);
const i16x8ExtendHighU8 = simd(0x8a);
const i16x8Sub = simd(0x91);
const i16x8Abs = simd(0x80);
const i32x4ExtaddPairwiseI16S = simd(0x7e);
const i32x4Add = simd(0xae);
const i32x4DotI16S = simd(0xba);

type Kind = 'dot' | 'l2' | 'l1';

/**
 * `kernel(a, b, n) -> i32`. Locals: 0 a, 1 b, 2 n, 3 i, 4 acc, 5 va, 6 vb, 7 d (v128).
 * Each step widens the low then the high eight bytes of both rows.
 */
function kernelBody(kind: Kind): number[] {
  const half = (extend: number[]) => {
    const widened = [localGet(5), extend, localGet(6), extend];
    const combine = {
      dot: [...widened, i32x4DotI16S],
      l2: [...widened, i16x8Sub, localTee(7), localGet(7), i32x4DotI16S],
      l1: [...widened, i16x8Sub, i16x8Abs, i32x4ExtaddPairwiseI16S],
    }[kind];
    return [localGet(4), ...combine, i32x4Add, localSet(4)];
  };
  const code = [
    block,
    loop,
    localGet(3),
    localGet(2),
    i32GeU,
    brIf(1),
    localGet(0),
    localGet(3),
    i32Add,
    v128Load,
    localSet(5),
    localGet(1),
    localGet(3),
    i32Add,
    v128Load,
    localSet(6),
    ...half(i16x8ExtendLowU8),
    ...half(i16x8ExtendHighU8),
    localGet(3),
    i32Const(16),
    i32Add,
    localSet(3),
    br(0),
    end,
    end,
    localGet(4),
    i32x4ExtractLane(0),
    localGet(4),
    i32x4ExtractLane(1),
    i32Add,
    localGet(4),
    i32x4ExtractLane(2),
    i32Add,
    localGet(4),
    i32x4ExtractLane(3),
    i32Add,
    end,
  ].flat(3);
  const locals = [2, 1, I32, 4, V128];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

/** `score(a, b, n, mul) -> f32`: the kernel's sum scaled, plus both rows' corrections. */
function scoreBody(kernel: number): number[] {
  const code = [
    localGet(0),
    localGet(1),
    localGet(2),
    call(kernel),
    f32ConvertI32S,
    localGet(3),
    f32Mul,
    localGet(0),
    localGet(2),
    i32Add,
    f32Load,
    f32Add,
    localGet(1),
    localGet(2),
    i32Add,
    f32Load,
    f32Add,
    end,
  ].flat();
  return [...uleb(1 + code.length), 0, ...code];
}

/**
 * `gather(q, base, stride, ids, count, n, mul, out)`: out[j] = score(base + ids[j] * stride, q),
 * every row read ahead first as the float gather reads its vectors (kernels.ts).
 * Locals: 0 q, 1 base, 2 stride, 3 ids, 4 count, 5 n, 6 mul, 7 out, 8 j, 9 row, 10 offset,
 * 11 xor, 12 read-ahead end.
 */
function gatherBody(score: number): number[] {
  const byIndex = (ptr: number) => [localGet(ptr), localGet(8), i32Const(2), i32Shl, i32Add];
  const touch = readAhead({
    base: 1,
    ids: 3,
    count: 4,
    stride: 2,
    out: 7,
    j: 8,
    row: 9,
    offset: 10,
    xor: 11,
    end: 12,
  });
  const code = [
    ...touch,
    block,
    loop,
    localGet(8),
    localGet(4),
    i32GeU,
    brIf(1),
    ...byIndex(7),
    localGet(1),
    ...byIndex(3),
    i32Load,
    localGet(2),
    i32Mul,
    i32Add,
    localGet(0),
    localGet(5),
    localGet(6),
    call(score),
    f32Store,
    localGet(8),
    i32Const(1),
    i32Add,
    localSet(8),
    br(0),
    end,
    end,
    end,
  ].flat(2);
  const locals = [1, 5, I32];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

const EXPORTS = [
  'dot_u8',
  'l2_u8',
  'l1_u8',
  'score_dot',
  'score_l2',
  'score_l1',
  'gather_dot',
  'gather_l2',
  'gather_l1',
];

/** The module's bytes. */
export function int8ModuleBytes(): Uint8Array {
  const types = [
    3,
    ...[0x60, 3, I32, I32, I32, 1, I32],
    ...[0x60, 4, I32, I32, I32, F32, 1, F32],
    ...[0x60, 8, I32, I32, I32, I32, I32, I32, F32, I32, 0],
  ];
  const memoryImport = [1, ...name('env'), ...name('memory'), 0x02, 0x03, 1, ...uleb(65536)];
  const functions = [9, 0, 0, 0, 1, 1, 1, 2, 2, 2];
  const exports = [EXPORTS.length, ...EXPORTS.flatMap((n, i) => [...name(n), 0x00, i])];
  const bodies = [
    9,
    ...kernelBody('dot'),
    ...kernelBody('l2'),
    ...kernelBody('l1'),
    ...scoreBody(0),
    ...scoreBody(1),
    ...scoreBody(2),
    ...gatherBody(3),
    ...gatherBody(4),
    ...gatherBody(5),
  ];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, types),
    ...section(2, memoryImport),
    ...section(3, functions),
    ...section(7, exports),
    ...section(10, bodies),
  ]);
}

let compiled: object | undefined;

/** Instantiates the int8 kernels on a shared memory (compiled once per thread). */
export function instantiateInt8Kernels(memory: WasmMemory): Int8Kernels {
  compiled ??= compileModule(int8ModuleBytes());
  return instantiateOn(compiled, memory) as Int8Kernels;
}
