/**
 * A point's payload as a tree the explorer renders readably: objects and
 * arrays as branches (with their size), scalars as leaves formatted as JSON
 * would write them, long strings cut.
 */

/** One node of the tree. */
export interface TreeNode {
  /** The key in its parent (an index for an array item; '' for the root). */
  key: string;
  kind: 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';
  /** A leaf's text, or a branch's summary (`{3}`, `[2]`). */
  text: string;
  children: TreeNode[];
}

/** The longest string a leaf shows whole. */
export const MAX_LEAF_CHARS = 200;

/** The tree of `value` under `key`. */
export function payloadTree(value: unknown, key = ''): TreeNode {
  if (Array.isArray(value)) {
    return {
      key,
      kind: 'array',
      text: `[${value.length}]`,
      children: value.map((item, i) => payloadTree(item, String(i))),
    };
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return {
      key,
      kind: 'object',
      text: `{${entries.length}}`,
      children: entries.map(([k, v]) => payloadTree(v, k)),
    };
  }
  if (typeof value === 'string') {
    const cut = value.length > MAX_LEAF_CHARS ? `${value.slice(0, MAX_LEAF_CHARS)}…` : value;
    return { key, kind: 'string', text: JSON.stringify(cut), children: [] };
  }
  if (typeof value === 'number') return { key, kind: 'number', text: String(value), children: [] };
  if (typeof value === 'boolean')
    return { key, kind: 'boolean', text: String(value), children: [] };
  return { key, kind: 'null', text: 'null', children: [] };
}
