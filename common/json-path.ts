/**
 * Qdrant's payload key paths: `a.b`, `a[]` (every element), `a[2]` (one element) and
 * `"quoted.key"`, and the ways Qdrant reads, sets, removes and projects values with them.
 * A path is an array: its first item the top-level key, then keys (strings), indices
 * (numbers) and {@link WILDCARD}. Shared by the engine (which stores payloads) and the
 * vector gateway (which predicts what a payload write will make); the engine wraps the
 * parser with its own 400 (engine/src/json-path.ts).
 */

/** The `[]` step: every element of an array. */
export const WILDCARD = -1;

/** A parsed path: a top-level key, then keys, indices and wildcards. */
export type JsonPath = readonly [string, ...(string | number)[]];

/** A JSON object, as payloads are. */
export type JsonObject = Record<string, unknown>;

const RAW_KEY_CHAR = /[\p{Alphabetic}\p{N}_-]/u;

/** Parses a path, or returns undefined when it is not one (Qdrant's grammar exactly). */
export function tryParseJsonPath(text: string): JsonPath | undefined {
  const items: (string | number)[] = [];
  let i = 0;
  const readKey = (): string | undefined => {
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) return undefined;
      const key = text.slice(i + 1, end);
      if (key.includes('\\')) return undefined;
      i = end + 1;
      return key;
    }
    const start = i;
    while (i < text.length) {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      if (!RAW_KEY_CHAR.test(ch)) break;
      i += ch.length;
    }
    return i > start ? text.slice(start, i) : undefined;
  };
  const first = readKey();
  if (first === undefined) return undefined;
  items.push(first);
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      const key = readKey();
      if (key === undefined) return undefined;
      items.push(key);
    } else if (text[i] === '[') {
      const close = text.indexOf(']', i);
      if (close < 0) return undefined;
      const inner = text.slice(i + 1, close);
      if (inner === '') items.push(WILDCARD);
      else if (/^\d+$/.test(inner)) items.push(Number(inner));
      else return undefined;
      i = close + 1;
    } else return undefined;
  }
  return items as unknown as JsonPath;
}

/** Prints a path back in Qdrant's canonical spelling. */
export function formatJsonPath(path: JsonPath): string {
  const key = (k: string) => (/^[\p{Alphabetic}\p{N}_-]+$/u.test(k) ? k : `"${k}"`);
  let out = key(path[0]);
  for (let i = 1; i < path.length; i++) {
    const item = path[i]!;
    if (typeof item === 'string') out += `.${key(item)}`;
    else out += item === WILDCARD ? '[]' : `[${item}]`;
  }
  return out;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The values a path selects. A key step into an array selects nothing (Qdrant wants an
 * explicit `[]`); arrays at the end are returned whole, for the condition to look inside.
 */
export function getValues(payload: JsonObject, path: JsonPath): unknown[] {
  const out: unknown[] = [];
  if (!Object.prototype.hasOwnProperty.call(payload, path[0])) return out;
  collect(payload[path[0]], path, 1, out);
  return out;
}

function collect(value: unknown, path: JsonPath, at: number, out: unknown[]): void {
  if (at === path.length) {
    out.push(value);
    return;
  }
  const step = path[at]!;
  if (typeof step === 'string') {
    if (isObject(value) && Object.prototype.hasOwnProperty.call(value, step)) {
      collect(value[step], path, at + 1, out);
    }
  } else if (Array.isArray(value)) {
    if (step === WILDCARD) for (const element of value) collect(element, path, at + 1, out);
    else if (step < value.length) collect(value[step], path, at + 1, out);
  }
}

/**
 * Sets an own property, whatever its key: assigning to `__proto__` would change the
 * object's prototype instead and lose the key, where Qdrant stores it like any other.
 */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else target[key] = value;
}

/** Merges `source` into `target` at the top level; a null value removes the key. */
export function mergeInto(target: JsonObject, source: JsonObject): void {
  for (const [key, value] of Object.entries(source)) {
    if (value === null) delete target[key];
    else setOwn(target, key, value);
  }
}

/**
 * Sets `source`'s keys at `path` inside `payload`, as Qdrant's set-payload-with-key does:
 * missing or non-object steps become objects, an index past the end changes nothing and
 * `[]` sets into every element.
 */
export function setAtPath(payload: JsonObject, path: JsonPath, source: JsonObject): void {
  setInMap(payload, path[0], path, 1, source);
}

function setInMap(map: JsonObject, key: string, path: JsonPath, at: number, src: JsonObject) {
  const has = Object.prototype.hasOwnProperty.call(map, key);
  setOwn(map, key, setIn(has ? map[key] : null, path, at, src));
}

function setIn(dest: unknown, path: JsonPath, at: number, src: JsonObject): unknown {
  if (at === path.length) {
    const target = isObject(dest) ? dest : {};
    mergeInto(target, src);
    return target;
  }
  const step = path[at]!;
  if (typeof step === 'string') {
    const target = isObject(dest) ? dest : {};
    setInMap(target, step, path, at + 1, src);
    return target;
  }
  if (step === WILDCARD) {
    if (!Array.isArray(dest)) return [];
    for (let i = 0; i < dest.length; i++) dest[i] = setIn(dest[i], path, at + 1, src);
    return dest;
  }
  const array = Array.isArray(dest) ? dest : [];
  if (step < array.length) array[step] = setIn(array[step], path, at + 1, src);
  return array;
}

/**
 * Removes what `path` selects. Removing one array index is not idempotent, so Qdrant
 * ignores it; a trailing `[]` empties the array.
 */
export function removeAtPath(payload: JsonObject, path: JsonPath): void {
  if (path.length === 1) {
    delete payload[path[0]];
    return;
  }
  if (Object.prototype.hasOwnProperty.call(payload, path[0])) {
    removeIn(payload[path[0]], path, 1);
  }
}

function removeIn(value: unknown, path: JsonPath, at: number): void {
  const step = path[at]!;
  const last = at === path.length - 1;
  if (typeof step === 'string') {
    if (!isObject(value)) return;
    if (last) delete value[step];
    else if (Object.prototype.hasOwnProperty.call(value, step)) removeIn(value[step], path, at + 1);
    return;
  }
  if (!Array.isArray(value)) return;
  if (step === WILDCARD) {
    if (last) value.length = 0;
    else for (const element of value) removeIn(element, path, at + 1);
  } else if (!last && step < value.length) removeIn(value[step], path, at + 1);
}

function sameItems(a: readonly (string | number)[], b: readonly (string | number)[], n: number) {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Copies `payload` keeping only what the projection wants: `include` keeps every value
 * whose path and some pattern are prefixes of one another, `exclude` drops every value
 * under one of its patterns.
 */
export function projectPayload(
  payload: JsonObject,
  patterns: readonly JsonPath[],
  mode: 'include' | 'exclude',
): JsonObject {
  const keep = (path: (string | number)[]): boolean => {
    if (mode === 'include') {
      return patterns.some((p) => sameItems(p, path, Math.min(p.length, path.length)));
    }
    return !patterns.some((p) => p.length <= path.length && sameItems(p, path, p.length));
  };
  const walk = (value: unknown, path: (string | number)[]): unknown => {
    if (Array.isArray(value)) {
      path.push(WILDCARD);
      const out: unknown[] = [];
      for (const element of value) if (keep(path)) out.push(walk(element, path));
      path.pop();
      return out;
    }
    if (isObject(value)) {
      const out: JsonObject = {};
      for (const [key, inner] of Object.entries(value)) {
        path.push(key);
        if (keep(path)) setOwn(out, key, walk(inner, path));
        path.pop();
      }
      return out;
    }
    return value;
  };
  return walk(payload, []) as JsonObject;
}
