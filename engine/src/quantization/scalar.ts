/**
 * Scalar (int8) quantization, after Qdrant's: every dimension of every vector is mapped
 * with one affine code, `x ≈ lo + alpha * c` with `c` a byte, where `[lo, lo + 255 alpha]`
 * covers the `quantile` share of all values (the rest are clamped). Similarities then come
 * from byte arithmetic:
 * - dot: `x·y ≈ alpha² Σ cx cy + alpha lo (Σcx + Σcy) + dim lo²`; the per-vector half of the
 *   last two terms is kept as the row's correction, so a score is `alpha² D + corr(x) + corr(y)`;
 * - Euclid: `-|x - y|² ≈ -alpha² Σ (cx - cy)²`; Manhattan: `-alpha Σ |cx - cy|` (no correction).
 * The codes are derived data: they are rebuilt from the vectors, never persisted.
 */
import type { Distance } from '../distance.js';

/** `quantization_config.scalar` as a collection was created with (echoed in collection info). */
export interface ScalarQuantizationConfig {
  type: 'int8';
  quantile?: number;
  alwaysRam?: boolean;
}

/** A search's `params.quantization`, with Qdrant's defaults filled in. */
export interface QuantizationSearchParams {
  /** Walk the full-precision vectors instead. */
  ignore: boolean;
  /** Rescore the quantized candidates with the full-precision vectors (default here: true). */
  rescore: boolean;
  /** Candidates taken from the quantized walk per result wanted, when rescoring (at least 1). */
  oversampling: number;
}

/** The affine code shared by every dimension: `x ≈ lo + alpha * c`. */
export interface ScalarBounds {
  lo: number;
  alpha: number;
}

/** The kind of integer sum a distance needs. */
export type Int8Kind = 'dot' | 'l2' | 'l1';

/** The sum of a distance (cosine vectors are stored normalised: a dot product). */
export function int8KindOf(distance: Distance): Int8Kind {
  return distance === 'Euclid' ? 'l2' : distance === 'Manhattan' ? 'l1' : 'dot';
}

/** Values sampled to find the bounds: enough for a stable quantile, few enough to sort fast. */
const SAMPLE_VALUES = 1 << 18;

/**
 * The bounds covering the central `quantile` of the values of the vectors at `slots`
 * (`data` holds slot `s` at `s * dim`), from evenly spaced vectors when there are many.
 */
export function scalarBounds(
  data: Float32Array,
  dim: number,
  slots: ArrayLike<number>,
  quantile = 1,
): ScalarBounds {
  const vectors = Math.min(slots.length, Math.max(1, Math.floor(SAMPLE_VALUES / dim)));
  const sample = new Float32Array(vectors * dim);
  for (let i = 0; i < vectors; i++) {
    const slot = slots[Math.floor((i * slots.length) / vectors)]!;
    sample.set(data.subarray(slot * dim, (slot + 1) * dim), i * dim);
  }
  if (sample.length === 0) return { lo: 0, alpha: 1 / 255 };
  sample.sort();
  const last = sample.length - 1;
  const cut = (1 - quantile) / 2;
  const lo = sample[Math.floor(cut * last)]!;
  const hi = sample[Math.ceil((1 - cut) * last)]!;
  // Every value equal: any positive step encodes them exactly (as code 0).
  const alpha = hi > lo ? (hi - lo) / 255 : Math.max(Math.abs(lo), 1) / 255;
  return { lo, alpha };
}

/** Encodes vectors with fixed bounds for one distance. */
export class ScalarQuantizer {
  /** The factor of the integer sum in a similarity. */
  readonly multiplier: number;
  private readonly inverse: number;

  constructor(
    readonly bounds: ScalarBounds,
    readonly dim: number,
    readonly kind: Int8Kind,
  ) {
    const { alpha } = bounds;
    this.multiplier = kind === 'dot' ? alpha * alpha : kind === 'l2' ? -alpha * alpha : -alpha;
    this.inverse = 1 / alpha;
  }

  /**
   * Writes the codes of `vector` (its first `dim` floats) into `codes` from `at`, and
   * returns the vector's correction term.
   */
  encode(vector: ArrayLike<number>, codes: Uint8Array, at: number): number {
    const { lo, alpha } = this.bounds;
    const { inverse, dim } = this;
    let sum = 0;
    for (let i = 0; i < dim; i++) {
      const c = Math.round((vector[i]! - lo) * inverse);
      const code = c < 0 ? 0 : c > 255 ? 255 : c;
      codes[at + i] = code;
      sum += code;
    }
    return this.kind === 'dot' ? alpha * lo * sum + (dim * lo * lo) / 2 : 0;
  }

  /** The value a code stands for. */
  decode(code: number): number {
    return this.bounds.lo + this.bounds.alpha * code;
  }
}
