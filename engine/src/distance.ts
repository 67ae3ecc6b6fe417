/**
 * Distances and scores as Qdrant reports them. Internally every distance is a similarity
 * where higher is better (Euclid and Manhattan negated), so search code has one ordering;
 * {@link reportedScore} turns it into what Qdrant prints: cosine and dot similarity,
 * Euclidean and Manhattan distance.
 */

/** The distance functions a collection can use. */
export type Distance = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';

/** Every distance name, spelled as Qdrant spells it. */
export const DISTANCES: readonly Distance[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];

/**
 * Similarity of the vector at `offset` in `store` and the one at `qOffset` in `query`
 * (another stored vector or a query at 0); higher is better.
 */
export type SimilarityFn = (
  store: Float32Array,
  offset: number,
  query: Float32Array,
  qOffset: number,
  dim: number,
) => number;

function dot(store: Float32Array, offset: number, query: Float32Array, q: number, dim: number) {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  // Four accumulators let the JIT overlap the multiply-adds.
  for (; i + 3 < dim; i += 4) {
    s0 += store[offset + i]! * query[q + i]!;
    s1 += store[offset + i + 1]! * query[q + i + 1]!;
    s2 += store[offset + i + 2]! * query[q + i + 2]!;
    s3 += store[offset + i + 3]! * query[q + i + 3]!;
  }
  for (; i < dim; i++) s0 += store[offset + i]! * query[q + i]!;
  return s0 + s1 + s2 + s3;
}

function negSquaredEuclid(
  store: Float32Array,
  offset: number,
  query: Float32Array,
  q: number,
  dim: number,
): number {
  let s0 = 0;
  let s1 = 0;
  let i = 0;
  for (; i + 1 < dim; i += 2) {
    const d0 = store[offset + i]! - query[q + i]!;
    const d1 = store[offset + i + 1]! - query[q + i + 1]!;
    s0 += d0 * d0;
    s1 += d1 * d1;
  }
  for (; i < dim; i++) {
    const d = store[offset + i]! - query[q + i]!;
    s0 += d * d;
  }
  return -(s0 + s1);
}

function negManhattan(
  store: Float32Array,
  offset: number,
  query: Float32Array,
  q: number,
  dim: number,
) {
  let s = 0;
  for (let i = 0; i < dim; i++) s += Math.abs(store[offset + i]! - query[q + i]!);
  return -s;
}

/**
 * The scalar similarity function of a distance (cosine vectors are normalised, so it is a
 * dot product): the reference the SIMD kernels in simd/kernels.ts are tested against.
 */
export function similarityFn(distance: Distance): SimilarityFn {
  switch (distance) {
    case 'Cosine':
    case 'Dot':
      return dot;
    case 'Euclid':
      return negSquaredEuclid;
    case 'Manhattan':
      return negManhattan;
  }
}

/**
 * Prepares a vector for storage or as a query: cosine vectors are scaled to unit length
 * in 32-bit floats like Qdrant does, and a (near) zero vector is left as it is.
 */
export function preprocess(distance: Distance, vector: Float32Array): Float32Array {
  if (distance !== 'Cosine') return vector;
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const length = Math.fround(Math.sqrt(sum));
  if (length < 1.1920929e-7) return vector;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / length;
  return vector;
}

/** The score Qdrant reports for an internal similarity, rounded to 32 bits as Qdrant's is. */
export function reportedScore(distance: Distance, similarity: number): number {
  switch (distance) {
    case 'Euclid':
      return Math.fround(Math.sqrt(Math.abs(similarity)));
    case 'Manhattan':
      return Math.fround(Math.abs(similarity));
    default:
      return Math.fround(similarity);
  }
}

/** Whether a reported score passes a threshold: distances at most it, similarities at least it. */
export function passesThreshold(distance: Distance, score: number, threshold: number): boolean {
  return distance === 'Euclid' || distance === 'Manhattan'
    ? score <= threshold
    : score >= threshold;
}
