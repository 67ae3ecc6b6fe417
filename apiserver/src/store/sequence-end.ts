/**
 * The end of a numbered sequence stored without holes (documents keyed by a number that
 * runs first, first + 1, ..., last), found by primary-key lookups alone: the only lookups
 * FerretDB's SQLite backend answers without reading the whole collection.
 */

/**
 * The last number of the sequence, given `from`, a number known to be stored (or one
 * below the first). Steps forward doubling while numbers exist, then halves back between
 * the last found and the first missing: about 2 log2(distance) lookups. `exists` must be
 * true exactly for the numbers from the first to the last.
 */
export async function sequenceEnd(
  from: number,
  exists: (n: number) => Promise<boolean>,
): Promise<number> {
  let low = from;
  let step = 1;
  while (await exists(low + step)) {
    low += step;
    step *= 2;
  }
  let high = low + step;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await exists(mid)) low = mid;
    else high = mid;
  }
  return low;
}
