/**
 * The ends of a numbered sequence stored without holes (documents keyed by a number that
 * runs first, first + 1, ..., last), found by primary-key lookups alone: the only lookups
 * FerretDB's SQLite backend answers without reading the whole collection.
 */

/**
 * The smallest number in (low, high] for which `holds` is true, given it is false at `low`,
 * true at `high` and changes once between them: halving, about log2(high - low) lookups.
 */
export async function firstHolding(
  low: number,
  high: number,
  holds: (n: number) => Promise<boolean>,
): Promise<number> {
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (await holds(mid)) high = mid;
    else low = mid;
  }
  return high;
}

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
  const missing = await firstHolding(low, low + step, async (n) => !(await exists(n)));
  return missing - 1;
}
