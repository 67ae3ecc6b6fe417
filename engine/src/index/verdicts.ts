/**
 * A slot's answer to a filter as one byte, kept per slot by a filter's plan
 * (filter-plan.ts), filled from the payload indexes (filter-answers.ts) and read directly
 * by the graph walk (hnsw.ts).
 */

/** An answer not known yet: the slot's payload must be evaluated. */
export const UNKNOWN = 0;
/** The slot passes the filter. */
export const PASSES = 1;
/** The slot fails the filter. */
export const FAILS = 2;

/**
 * What a walk knows of a filter's answers: the verdict of each slot, and once none is
 * UNKNOWN, the slots that pass as a bitset (bit `s % 32` of word `s >> 5`). At 100k slots
 * the bitset is 12.5 KB and stays in the first-level cache while a walk reads vectors; the
 * bytes are 100 KB and do not.
 */
export interface KnownVerdicts {
  bytes: Uint8Array;
  passing: Uint32Array | undefined;
}

/** The slots whose verdict is PASSES, as a bitset; undefined when some verdict is UNKNOWN. */
export function passingBits(bytes: Uint8Array): Uint32Array | undefined {
  if (bytes.includes(UNKNOWN)) return undefined;
  const bits = new Uint32Array((bytes.length + 31) >>> 5);
  for (let slot = 0; slot < bytes.length; slot++) {
    if (bytes[slot] === PASSES) bits[slot >>> 5]! |= 1 << (slot & 31);
  }
  return bits;
}
