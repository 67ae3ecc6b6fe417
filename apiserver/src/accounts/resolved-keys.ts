/**
 * Resolved API keys, cached in this process for both front doors (the control
 * plane and the vector plane look a key up on every request, two database
 * round trips each). Staleness bounds, as the README states them:
 * - a change made through this process (a key revoked, an agent's keys
 *   revoked, an account suspended, its plan or subscription changed) applies
 *   to its next request: every AccountService over the same database shares
 *   one cache and forgets what the change touched;
 * - a change made by another process (the admin command, another API-server
 *   replica) applies within {@link RESOLVED_KEY_TTL_MS};
 * - a key that does not resolve is never cached, so a new key works at once.
 * Entries are keyed by the key's hash, never its text.
 */
import { TtlCache } from '../../../common/ttl-cache.js';
import type { ApiKeyDoc, AccountDoc } from './model.js';

/** How long another process's change to a key or an account may go unseen. */
export const RESOLVED_KEY_TTL_MS = 5_000;

/** A key that resolved: the key record and its account. */
export interface CachedResolution {
  key: ApiKeyDoc;
  account: AccountDoc;
}

const byDatabase = new Map<string, TtlCache<CachedResolution>>();

/** The cache of resolved keys of the database `databaseName`, shared in this process. */
export function resolvedKeysOf(databaseName: string): TtlCache<CachedResolution> {
  let cache = byDatabase.get(databaseName);
  if (!cache) {
    cache = new TtlCache<CachedResolution>(RESOLVED_KEY_TTL_MS);
    byDatabase.set(databaseName, cache);
  }
  return cache;
}
