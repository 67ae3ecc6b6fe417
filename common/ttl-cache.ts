/**
 * A small in-process cache with a time-to-live, for lookups every request
 * repeats (key → account, name → collection). On FerretDB each such
 * lookup is a millisecond-scale round trip that would otherwise dominate a
 * search; a few seconds of staleness is the price, stated where it is used.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The cached value, or undefined when absent or expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires !== Infinity && entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Caches `value` for the TTL. */
  set(key: string, value: V): void {
    // Dropping everything at the cap keeps this O(1) and bounded; a miss only costs a lookup.
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  /** Forgets `key` (after a local change, so this process reads its own writes). */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every value `matches` picks (a change that several entries reflect). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
