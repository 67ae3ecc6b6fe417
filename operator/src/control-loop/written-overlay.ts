/**
 * The objects this operator wrote and its cache has not seen back yet. A reconcile
 * reads its object from the informer cache; right after its own status write, the cache
 * may still hold the version written over (the watch event is on its way), and a
 * reconcile that read it would compute from a stale status and have its write refused
 * (409). Remembering the written object until the cache moves past the version it
 * replaced closes that gap without a read from the API.
 */

/** An object with a resourceVersion. */
interface Versioned {
  metadata: { resourceVersion?: string };
}

/** What was written over which version, per key. */
export class WrittenOverlay<T extends Versioned> {
  private readonly written = new Map<string, { over: string | undefined; object: T }>();

  /** Records that `object` replaced the version `over` of `key`. */
  record(key: string, over: string | undefined, object: T): void {
    this.written.set(key, { over, object });
  }

  /**
   * The freshest known version of `key`: the written object while the cache still
   * holds the version it replaced, else `cached` (and the record is dropped).
   */
  pick(key: string, cached: T | undefined): T | undefined {
    const entry = this.written.get(key);
    if (!entry) return cached;
    if (cached && cached.metadata.resourceVersion === entry.over) return entry.object;
    this.written.delete(key);
    return cached;
  }

  /** Drops what is recorded for `key` (its cache entry changed: it has seen the write or a newer one). */
  forget(key: string): void {
    this.written.delete(key);
  }

  /** How many keys have a write the cache has not shown yet. */
  get size(): number {
    return this.written.size;
  }
}
