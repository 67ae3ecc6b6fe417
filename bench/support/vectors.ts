/**
 * Seeded vector data for the ANN benchmarks: uniform random vectors, and clustered ones
 * that look like embeddings (a Gaussian mixture in a low-dimensional latent space, lifted
 * into `dim` dimensions by a fixed random linear map, plus a little isotropic noise).
 * Uniform data in 128-d has no structure for a graph to exploit, so it is the hard case for
 * recall; real embeddings are clustered and of low intrinsic dimension.
 */
import { Prng } from '../../test/engine/differential/prng.js';

/** Which kind of data. */
export type DataKind = 'uniform' | 'clustered';

/** A data set: `count` base vectors and `queries` query vectors, drawn alike. */
export interface VectorData {
  kind: DataKind;
  dim: number;
  base: Float32Array[];
  queries: Float32Array[];
}

/** Latent dimensions and mixture components of the clustered data. */
const LATENT_DIM = 16;
const CLUSTERS = 64;
/** Spread of a cluster around its centre, relative to the spread of the centres. */
const CLUSTER_SPREAD = 0.35;
/** Isotropic noise per output dimension, relative to a coordinate's typical size. */
const NOISE = 0.05;

function gaussian(rng: Prng): number {
  // Box-Muller; 1 - next() keeps the logarithm finite.
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** Rounds to 4 decimals, as JSON round trips of both sides then carry the same numbers. */
function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Draws a data set; the same arguments give the same vectors. */
export function makeVectors(
  kind: DataKind,
  dim: number,
  count: number,
  queries: number,
  seed = 42,
): VectorData {
  const rng = new Prng(seed);
  let draw: () => Float32Array;
  if (kind === 'uniform') {
    draw = () => Float32Array.from({ length: dim }, () => round(rng.float(-1, 1)));
  } else {
    const lift = Float32Array.from({ length: dim * LATENT_DIM }, () => gaussian(rng));
    const centres = Array.from({ length: CLUSTERS }, () =>
      Float32Array.from({ length: LATENT_DIM }, () => gaussian(rng)),
    );
    const scale = 1 / Math.sqrt(LATENT_DIM);
    draw = () => {
      const centre = rng.pick(centres);
      const latent = centre.map((c) => c + CLUSTER_SPREAD * gaussian(rng));
      const out = new Float32Array(dim);
      for (let d = 0; d < dim; d++) {
        let x = 0;
        for (let j = 0; j < LATENT_DIM; j++) x += lift[d * LATENT_DIM + j]! * latent[j]!;
        out[d] = round(x * scale + NOISE * gaussian(rng));
      }
      return out;
    };
  }
  const base = Array.from({ length: count }, draw);
  const query = Array.from({ length: queries }, draw);
  return { kind, dim, base, queries: query };
}

/** Scales a vector to unit length (cosine data, as both engines store it). */
export function normalized(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return v.map((x) => x * inv);
}

/** The ids of the `k` base vectors most similar (cosine) to each query, best first. */
export function groundTruth(
  data: VectorData,
  k: number,
  accept?: (i: number) => boolean,
): number[][] {
  const base = data.base.map(normalized);
  return data.queries.map((raw) => {
    const q = normalized(raw);
    const best: { id: number; score: number }[] = [];
    base.forEach((v, id) => {
      if (accept && !accept(id)) return;
      let s = 0;
      for (let d = 0; d < q.length; d++) s += q[d]! * v[d]!;
      if (best.length < k || s > best[best.length - 1]!.score) {
        best.push({ id, score: s });
        best.sort((a, b) => b.score - a.score);
        if (best.length > k) best.pop();
      }
    });
    return best.map((b) => b.id);
  });
}
