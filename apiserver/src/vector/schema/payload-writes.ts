/**
 * The payload a point will hold after a payload set, predicted so a schema
 * can check it before the write is forwarded. The engine's own path and merge
 * rules are used (Qdrant's semantics, which the embedded engine is tested
 * against), so the prediction is what the engine will store.
 */
import { mergeInto, setAtPath, tryParseJsonPath } from '../../../../common/json-path.js';

/** A payload set (merge) or overwrite, as its route body carries it. */
export interface PayloadWrite {
  kind: 'merge' | 'overwrite';
  payload?: unknown;
  /** Point ids, when the write selects by id. */
  points?: unknown;
  filter?: unknown;
  /** A merge into a nested path (`a.b`, `list[]`). */
  key?: unknown;
}

/**
 * `current` after merging `sent` into it, at `key` when given. A key that is
 * not a path is left to the engine to refuse; the prediction then merges at
 * the top level.
 */
export function predictPayload(
  current: Record<string, unknown>,
  sent: Record<string, unknown>,
  key: unknown,
): Record<string, unknown> {
  const next = structuredClone(current);
  const path = typeof key === 'string' ? tryParseJsonPath(key) : undefined;
  if (path) setAtPath(next, path, structuredClone(sent));
  else mergeInto(next, structuredClone(sent));
  return next;
}
