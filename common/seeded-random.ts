/**
 * A seeded pseudo-random source for the engine's tests (a 32-bit linear
 * congruential generator): the same seed gives the same vectors on every run,
 * so a failing case can be replayed.
 */

/** Numbers in [0, 1) from `seed`, the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}
