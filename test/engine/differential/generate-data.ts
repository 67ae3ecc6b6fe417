/**
 * Random points for the differential tests. Each payload field keeps one value type
 * (strings, integers, fractions, ...) or is deliberately mixed, so a payload index on a
 * typed field sees only its own type; `mixed` and `flag` are never indexed. Floats always
 * have a fractional part: JSON cannot tell 2.0 from 2, and Qdrant treats them differently.
 */
import type { Prng } from './prng.js';

/** Keywords, some differing only in case. */
export const KEYWORDS = ['red', 'green', 'blue', 'cyan', 'Red', 'ünï'];
/** Words of the text field, with separators the word tokenizer splits on. */
export const TEXT_WORDS = [
  'alpha',
  'beta',
  'Gamma',
  'delta',
  'new',
  'world',
  'hello-world',
  'x_y',
  'straße',
  'ab',
];

/**
 * A random vector of `dim` values at full precision (occasionally all zero). Not on a grid
 * of a few decimals: in few dimensions grid vectors often score exactly alike against a
 * query (Manhattan distances are sums of grid steps), and a tie at a prefetch's limit lets
 * each side keep a different point, which the root query (order_by most visibly) then
 * shows. Neither side is wrong there: qdrant-edge's order among tied scores is not even the
 * same from one limit to the next (ids 3 then 9, 3 for limits 1 and 2 in one search).
 */
export function randomVector(rng: Prng, dim: number): number[] {
  if (rng.chance(0.02)) return new Array<number>(dim).fill(0);
  return Array.from({ length: dim }, () => rng.float(-1, 1));
}

function maybeArray<T>(rng: Prng, one: () => T): T | T[] {
  return rng.chance(0.3) ? Array.from({ length: rng.int(0, 3) }, one) : one();
}

/** A random datetime in the spellings Qdrant accepts. */
export function randomDatetime(rng: Prng): string {
  const day = String(rng.int(1, 9)).padStart(2, '0');
  const hour = String(rng.int(0, 23)).padStart(2, '0');
  const minute = String(rng.int(0, 59)).padStart(2, '0');
  switch (rng.int(0, 4)) {
    case 0:
      return `2024-01-${day}`;
    case 1:
      return `2024-01-${day}T${hour}:${minute}:00Z`;
    case 2:
      return `2024-01-${day}T${hour}:${minute}:30+02:00`;
    case 3:
      return `2024-01-${day} ${hour}:${minute}:00`;
    default:
      return `2024-01-${day}T${hour}:${minute}:15.250Z`;
  }
}

/** A random point inside the area the geo conditions look at. */
export function randomGeo(rng: Prng): { lon: number; lat: number } {
  return { lon: rng.fraction(10, 20), lat: rng.fraction(40, 50) };
}

function randomText(rng: Prng): string {
  const words = Array.from({ length: rng.int(1, 5) }, () => rng.pick(TEXT_WORDS));
  return words.join(rng.pick([' ', ' ', ', ', '  ']));
}

function randomMixed(rng: Prng): unknown {
  return rng.pick<() => unknown>([
    () => rng.int(-3, 3),
    () => rng.fraction(-3, 3),
    () => rng.pick(KEYWORDS),
    () => rng.chance(0.5),
    () => null,
    () => [],
    () => [rng.int(-3, 3), rng.pick(KEYWORDS)],
    () => ({}),
    () => [[rng.int(-3, 3)]],
    () => [null],
  ])();
}

/** A random payload, or null (a point without one). */
export function randomPayload(rng: Prng, uuids: string[]): Record<string, unknown> | null {
  if (rng.chance(0.05)) return null;
  const payload: Record<string, unknown> = {};
  const maybe = (key: string, value: () => unknown) => {
    const r = rng.next();
    if (r < 0.15) return;
    payload[key] = r < 0.2 ? null : value();
  };
  maybe('kw', () => maybeArray(rng, () => rng.pick(KEYWORDS)));
  maybe('int', () => maybeArray(rng, () => rng.int(-5, 10)));
  // Single-valued numbers to order by (see scenario.ts).
  maybe('rank', () => rng.int(-5, 10));
  maybe('price', () => rng.fraction(0, 100));
  maybe('flt', () => maybeArray(rng, () => rng.fraction(-10, 10)));
  maybe('dt', () => maybeArray(rng, () => randomDatetime(rng)));
  maybe('geo', () => maybeArray(rng, () => randomGeo(rng)));
  maybe('txt', () => maybeArray(rng, () => randomText(rng)));
  maybe('u', () => rng.pick(uuids));
  maybe('flag', () => rng.chance(0.5));
  maybe('mixed', () => randomMixed(rng));
  maybe('nested', () =>
    Array.from({ length: rng.int(0, 3) }, () => {
      const element: Record<string, unknown> = {};
      if (rng.chance(0.8)) element.k = rng.pick(KEYWORDS);
      if (rng.chance(0.7)) element.n = rng.int(-5, 10);
      return element;
    }),
  );
  maybe('obj', () => {
    const obj: Record<string, unknown> = {};
    if (rng.chance(0.8)) obj.a = rng.chance(0.9) ? { b: rng.int(-5, 10) } : rng.int(0, 3);
    if (rng.chance(0.7)) obj.c = rng.pick(KEYWORDS);
    return obj;
  });
  return payload;
}

/** A random UUID (lowercase, hyphenated). */
export function randomUuid(rng: Prng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(0, 15).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
