/**
 * Random filters in Qdrant's REST shape, covering the whole language: must, should,
 * must_not, min_should (as lists or as a single condition), every match kind (value,
 * any, except, text, text_any, phrase, prefix, substring), number and datetime ranges,
 * the three geo shapes, values_count, is_empty, is_null (both as conditions and as
 * field-condition flags), has_id, has_vector, nested (with any inner filter, on arrays
 * of objects and on keys that are not), and dotted, `[]` and `[n]` paths. `match.value`
 * is never a boolean: qdrant-edge's Python binding reads a bool as an integer.
 */
import { KEYWORDS, TEXT_WORDS, randomDatetime, randomGeo } from './generate-data.js';
import type { Prng } from './prng.js';

type Json = Record<string, unknown>;

const STRING_KEYS = ['kw', 'obj.c', 'nested[].k', 'nested[0].k', 'mixed', 'u', 'missing'];
const INT_KEYS = ['int', 'obj.a.b', 'nested[].n', 'mixed', 'obj.a', 'int[]'];
const NUMBER_KEYS = ['int', 'flt', 'mixed', 'obj.a.b', 'nested[].n', 'flt[]', 'rank', 'price'];
const ANY_KEYS = [
  'kw',
  'int',
  'flt',
  'dt',
  'geo',
  'txt',
  'u',
  'flag',
  'mixed',
  'nested',
  'obj',
  'obj.a',
  'obj.a.b',
  'nested[].k',
  'missing',
  'kw[]',
];

/** Keys a scenario may put a payload index on. */
const INDEXED_KEYS = new Set([
  'kw',
  'int',
  'flt',
  'dt',
  'geo',
  'u',
  'obj.a.b',
  'nested[].k',
  'txt',
  'rank',
  'price',
]);

/**
 * Range bounds. On a key that may be indexed, at most one lower and one upper bound:
 * Qdrant answers a lone indexed range from the index, where `gt` overrides `gte` and `lt`
 * overrides `lte`, but applies all four elsewhere; the engine always applies all four.
 */
function bounds(rng: Prng, key: string, value: () => unknown): Json {
  const out: Json = {};
  const single = INDEXED_KEYS.has(key);
  for (const [a, b] of [
    ['gt', 'gte'],
    ['lt', 'lte'],
  ] as const) {
    if (single) {
      if (rng.chance(0.6)) out[rng.pick([a, b])] = value();
    } else {
      if (rng.chance(0.4)) out[a] = value();
      if (rng.chance(0.4)) out[b] = value();
    }
  }
  if (Object.keys(out).length === 0) out[rng.pick(['gt', 'lt'])] = value();
  return out;
}

/** A datetime in the looser spellings chrono (and so Qdrant) also reads. */
function relaxedDatetime(rng: Prng): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = rng.int(1, 9);
  const hour = rng.int(0, 23);
  const minute = rng.int(0, 59);
  const date = `2024-01-${pad(day)}`;
  switch (rng.int(0, 6)) {
    case 0:
      return `2024-1-${day}`;
    case 1:
      return `${date}T${hour}:${minute}`;
    case 2:
      return `${date} ${pad(hour)}:${pad(minute)}:00 UTC`;
    case 3:
      return `${date}T${pad(hour)}:${pad(minute)}:00 +0130`;
    case 4:
      return ` ${date}T${pad(hour)}:${pad(minute)}:07.1234567Z`;
    case 5:
      return `${date}T${pad(hour)}:${pad(minute)}:00-02`;
    default:
      return `${date}t${pad(hour)}:${pad(minute)}:00+02:00`;
  }
}

/** Beginnings and pieces of the keywords, texts and UUIDs the payloads hold. */
function keywordPiece(rng: Prng, uuids: string[]): string {
  const whole = rng.pick([...KEYWORDS, ...TEXT_WORDS, ...uuids.slice(0, 2)]);
  const start = rng.chance(0.5) ? 0 : rng.int(0, whole.length);
  return whole.slice(start, start + rng.int(0, 4));
}

function fieldCondition(rng: Prng, uuids: string[]): Json {
  switch (rng.int(0, 14)) {
    case 0:
      return {
        key: rng.pick(STRING_KEYS),
        match: { value: rng.pick([...KEYWORDS, ...uuids.slice(0, 2)]) },
      };
    case 1:
      return { key: rng.pick(INT_KEYS), match: { value: rng.int(-5, 10) } };
    case 2: {
      const ints = rng.chance(0.5);
      const list = Array.from({ length: rng.int(0, 3) }, () =>
        ints ? rng.int(-5, 10) : rng.pick(KEYWORDS),
      );
      const key = rng.pick(ints ? INT_KEYS : STRING_KEYS);
      return { key, match: { [rng.pick(['any', 'except'])]: list } };
    }
    case 3: {
      const words = Array.from({ length: rng.int(1, 2) }, () => rng.pick(TEXT_WORDS));
      const text = rng.chance(0.2) ? words.join(' ').toUpperCase() : words.join(' ');
      return { key: 'txt', match: { [rng.pick(['text', 'text_any', 'phrase'])]: text } };
    }
    case 4: {
      const key = rng.pick(NUMBER_KEYS);
      return { key, range: bounds(rng, key, () => rng.fraction(-6, 11)) };
    }
    case 5: {
      const key = rng.pick(['dt', 'dt[]', 'mixed']);
      const bound = () => (rng.chance(0.3) ? relaxedDatetime(rng) : randomDatetime(rng));
      return { key, range: bounds(rng, key, bound) };
    }
    case 6: {
      const a = randomGeo(rng);
      const b = randomGeo(rng);
      return {
        key: 'geo',
        geo_bounding_box: {
          top_left: { lon: Math.min(a.lon, b.lon), lat: Math.max(a.lat, b.lat) },
          bottom_right: { lon: Math.max(a.lon, b.lon), lat: Math.min(a.lat, b.lat) },
        },
      };
    }
    case 7:
      return {
        key: 'geo',
        geo_radius: { center: randomGeo(rng), radius: rng.float(10_000, 600_000) },
      };
    case 8: {
      const c = randomGeo(rng);
      const w = rng.float(1, 5);
      const h = rng.float(1, 5);
      const ring = (s: number) => {
        const points = [
          { lon: c.lon - w * s, lat: c.lat - h * s },
          { lon: c.lon + w * s, lat: c.lat - h * s * 0.8 },
          { lon: c.lon + w * s * 0.9, lat: c.lat + h * s },
          { lon: c.lon - w * s, lat: c.lat + h * s * 0.7 },
        ];
        return { points: [...points, points[0]] };
      };
      const polygon: Json = { exterior: ring(1) };
      if (rng.chance(0.4)) polygon.interiors = [ring(0.4)];
      return { key: 'geo', geo_polygon: polygon };
    }
    case 9: {
      const count: Json = {};
      for (const b of ['gt', 'gte', 'lt', 'lte']) if (rng.chance(0.4)) count[b] = rng.int(0, 3);
      if (Object.keys(count).length === 0) count.gte = rng.int(0, 2);
      return { key: rng.pick(ANY_KEYS), values_count: count };
    }
    case 10:
      return { key: rng.pick(ANY_KEYS), is_empty: rng.chance(0.5) };
    case 11:
      return { key: rng.pick(ANY_KEYS), is_null: rng.chance(0.5) };
    case 12:
      return { key: 'flt', range: bounds(rng, 'flt', () => rng.fraction(-12, 12)) };
    case 13:
      return {
        key: rng.pick([...STRING_KEYS, 'txt', 'int']),
        match: { [rng.pick(['prefix', 'substring'])]: keywordPiece(rng, uuids) },
      };
    default:
      return {
        key: rng.pick(['kw', 'nested[].k']),
        match: { any: [rng.pick(KEYWORDS), rng.pick(KEYWORDS)] },
      };
  }
}

/** A condition on one element of `nested` (objects with `k`, a keyword, and `n`, an integer). */
function elementCondition(rng: Prng, depth: number): Json {
  switch (rng.int(0, 9)) {
    case 0:
    case 1:
      return { key: 'k', match: { value: rng.pick(KEYWORDS) } };
    case 2:
      return { key: 'n', range: bounds(rng, 'nested[].n', () => rng.int(-5, 10)) };
    case 3:
      return {
        key: 'n',
        match: { [rng.pick(['any', 'except'])]: [rng.int(-5, 10), rng.int(-5, 10)] },
      };
    case 4:
      return {
        key: 'k',
        match: { [rng.pick(['prefix', 'substring'])]: rng.pick(['r', 'e', 'gr', '']) },
      };
    case 5:
      // On `n` only: `nested[].k` may be indexed, and Qdrant then answers these inside
      // nested per point or per element depending on what its planner picks.
      return { [rng.pick(['is_empty', 'is_null'])]: { key: 'n' } };
    case 6:
      return {
        key: rng.pick(['k', 'n']),
        values_count: { [rng.pick(['gte', 'lt'])]: rng.int(0, 2) },
      };
    case 7:
      // Never true inside nested, in Qdrant as in the engine.
      return rng.chance(0.5) ? { has_id: [0, 3, 6] } : { has_vector: '' };
    case 8:
      return { key: 'n', [rng.pick(['is_empty', 'is_null'])]: rng.chance(0.5) };
    default:
      return depth > 0
        ? elementFilter(rng, depth - 1)
        : { key: 'k', match: { any: ['red', 'blue'] } };
  }
}

/** A filter over one element of `nested`: every clause of Qdrant's filter. */
function elementFilter(rng: Prng, depth: number): Json {
  const list = () => Array.from({ length: rng.int(1, 2) }, () => elementCondition(rng, depth));
  const filter: Json = {};
  if (rng.chance(0.7)) filter.must = list();
  if (rng.chance(0.3)) filter.should = list();
  if (rng.chance(0.4)) filter.must_not = list();
  if (rng.chance(0.15)) {
    const conditions = list();
    filter.min_should = { conditions, min_count: rng.int(0, conditions.length) };
  }
  // A filter standing as a condition needs a clause: the engine refuses `{}` there.
  if (Object.keys(filter).length === 0) filter.must = list();
  return filter;
}

function condition(rng: Prng, depth: number, ids: (number | string)[], uuids: string[]): Json {
  const r = rng.next();
  if (r < 0.57) return fieldCondition(rng, uuids);
  if (r < 0.64) return { is_empty: { key: rng.pick(ANY_KEYS) } };
  if (r < 0.71) return { is_null: { key: rng.pick(ANY_KEYS) } };
  if (r < 0.77) {
    return { has_id: Array.from({ length: rng.int(0, 4) }, () => rng.pick(ids)) };
  }
  if (r < 0.8) return { has_vector: rng.chance(0.8) ? '' : 'other' };
  if (r < 0.9) {
    // Mostly the array of objects, sometimes a key that is not one (it has no elements).
    const key = rng.pick(['nested', 'nested', 'nested', 'nested[]', 'obj', 'kw', 'missing']);
    return { nested: { key, filter: elementFilter(rng, 1) } };
  }
  if (depth > 0) return randomFilter(rng, depth - 1, ids, uuids);
  return fieldCondition(rng, uuids);
}

/** A random filter; `ids` are point ids (existing or not) for has_id. */
export function randomFilter(
  rng: Prng,
  depth: number,
  ids: (number | string)[],
  uuids: string[],
): Json {
  const filter: Json = {};
  const list = (): unknown => {
    const conditions = Array.from({ length: rng.int(1, 3) }, () =>
      condition(rng, depth, ids, uuids),
    );
    // Qdrant's MaybeOneOrMany: a single condition may stand without its list.
    return conditions.length === 1 && rng.chance(0.2) ? conditions[0] : conditions;
  };
  if (rng.chance(0.7)) filter.must = list();
  if (rng.chance(0.3)) filter.should = list();
  if (rng.chance(0.3)) filter.must_not = list();
  if (rng.chance(0.15)) {
    const conditions = Array.from({ length: rng.int(1, 3) }, () =>
      condition(rng, depth, ids, uuids),
    );
    filter.min_should = { conditions, min_count: rng.int(0, conditions.length) };
  }
  if (Object.keys(filter).length === 0) filter.must = list();
  return filter;
}
