/**
 * The logs section's reads: the query string of a page (filters and one
 * keyset cursor) and how a page joins what is shown, oldest first, capped so
 * a long follow does not grow the page without bound.
 */
import type { LogEntry } from '../api/types.js';

/** Streams and levels the filters offer (the contract's enumerations). */
export const LOG_STREAMS = ['stdout', 'stderr', 'system'] as const;
/** Levels the filters offer. */
export const LOG_LEVELS = ['INFO', 'WARN', 'ERROR', 'DEBUG', 'SYSTEM'] as const;

/** Entries the section keeps at most. */
export const MAX_SHOWN = 1000;

/** The filters chosen: empty means all. */
export interface LogFilters {
  streams: readonly string[];
  levels: readonly string[];
}

/** The query string of a page: newest (no cursor), `after` (follow) or `before` (older). */
export function logQuery(
  filters: LogFilters,
  cursor: { after_id?: number; before_id?: number },
  limit = 100,
): string {
  const q = new URLSearchParams({ limit: String(limit) });
  if (filters.streams.length > 0 && filters.streams.length < LOG_STREAMS.length)
    q.set('stream', filters.streams.join(','));
  if (filters.levels.length > 0 && filters.levels.length < LOG_LEVELS.length)
    q.set('level', filters.levels.join(','));
  if (cursor.after_id !== undefined) q.set('after_id', String(cursor.after_id));
  if (cursor.before_id !== undefined) q.set('before_id', String(cursor.before_id));
  return q.toString();
}

/** `shown` with newer `entries` appended (duplicates dropped), the oldest cut past {@link MAX_SHOWN}. */
export function appendNewer(shown: readonly LogEntry[], entries: readonly LogEntry[]): LogEntry[] {
  const last = shown[shown.length - 1]?.id ?? -1;
  const merged = [...shown, ...entries.filter((e) => e.id > last)];
  return merged.length > MAX_SHOWN ? merged.slice(merged.length - MAX_SHOWN) : merged;
}

/** `shown` with older `entries` put before it. */
export function prependOlder(shown: readonly LogEntry[], entries: readonly LogEntry[]): LogEntry[] {
  const first = shown[0]?.id ?? Number.MAX_SAFE_INTEGER;
  return [...entries.filter((e) => e.id < first), ...shown];
}
