import { describe, expect, test } from '@jest/globals';
import { NO_INDEXES, matchesFilter } from './evaluate.js';
import type { FilterContext } from './evaluate.js';
import { parseFilter } from './parse.js';

/** The ids among `points` that pass the filter. */
function select(points: Record<string, unknown>[], filter: unknown): number[] {
  const parsed = parseFilter(filter)!;
  return points.flatMap((payload, id) =>
    matchesFilter(parsed, id, payload, NO_INDEXES) ? [id] : [],
  );
}

const points: Record<string, unknown>[] = [
  { v: 1 }, // 0
  { v: [1, 2] }, // 1
  { v: null }, // 2
  { v: [] }, // 3
  {}, // 4
  { v: [null] }, // 5
  { v: '1' }, // 6
  { v: 1.5 }, // 7
  { v: true }, // 8
];

describe('Qdrant rules for arrays, missing fields and value types', () => {
  test('match.value compares like types only, and an array matches through any element', () => {
    expect(select(points, { must: [{ key: 'v', match: { value: 1 } }] })).toEqual([0, 1]);
    expect(select(points, { must: [{ key: 'v', match: { value: '1' } }] })).toEqual([6]);
    expect(select(points, { must: [{ key: 'v', match: { value: true } }] })).toEqual([8]);
  });

  test('except passes values outside the list, never null or a missing field', () => {
    expect(select(points, { must: [{ key: 'v', match: { except: [1] } }] })).toEqual([1, 6, 7, 8]);
  });

  test('is_empty: missing, null or []; is_null: null or an array holding null', () => {
    expect(select(points, { must: [{ is_empty: { key: 'v' } }] })).toEqual([2, 3, 4]);
    expect(select(points, { must: [{ is_null: { key: 'v' } }] })).toEqual([2, 5]);
  });

  test('values_count counts array elements, null as none, a missing field as zero', () => {
    expect(select(points, { must: [{ key: 'v', values_count: { lt: 1 } }] })).toEqual([2, 3, 4]);
    expect(select(points, { must: [{ key: 'v', values_count: { gte: 2 } }] })).toEqual([1]);
  });

  test('must_not of a condition on a missing field passes', () => {
    expect(select(points, { must_not: [{ key: 'v', range: { gte: 0 } }] })).toEqual([
      2, 3, 4, 5, 6, 8,
    ]);
  });
});

describe('combinators', () => {
  const nums = [{ n: 1 }, { n: 2 }, { n: 3 }];

  test('should needs one, min_should needs min_count, an empty should passes', () => {
    expect(select(nums, { should: [{ key: 'n', match: { value: 1 } }, { has_id: [2] }] })).toEqual([
      0, 2,
    ]);
    expect(select(nums, { should: [] })).toEqual([0, 1, 2]);
    const conditions = [
      { key: 'n', range: { gte: 2 } },
      { key: 'n', range: { lte: 2 } },
    ];
    expect(select(nums, { min_should: { conditions, min_count: 2 } })).toEqual([1]);
  });

  test('a condition nested as a filter applies all its clauses', () => {
    const inner = { should: [{ has_id: [0] }, { key: 'n', match: { value: 3 } }] };
    expect(select(nums, { must: [inner], must_not: [{ has_id: [2] }] })).toEqual([0]);
  });
});

describe('keyword prefix and substring', () => {
  const docs = [
    { kw: 'redish' }, // 0
    { kw: ['blue', 'reddy'] }, // 1
    { kw: 'Red' }, // 2
    { kw: 5 }, // 3
    { kw: 'a-red-b' }, // 4
    { kw: '' }, // 5
    { kw: null }, // 6
    {}, // 7
  ];

  test('prefix is case-sensitive, looks into arrays and only at strings', () => {
    expect(select(docs, { must: [{ key: 'kw', match: { prefix: 'red' } }] })).toEqual([0, 1]);
    expect(select(docs, { must: [{ key: 'kw', match: { prefix: '' } }] })).toEqual([0, 1, 2, 4, 5]);
  });

  test('substring finds the string anywhere in a value', () => {
    expect(select(docs, { must: [{ key: 'kw', match: { substring: 'red' } }] })).toEqual([0, 1, 4]);
  });
});

test('nested: must_not, is_empty and values_count hold per element, has_id never', () => {
  const docs = [{ n: [{ x: 1 }, { x: 2 }] }, { n: [{ x: 2 }] }, { n: [{ y: 1 }] }];
  const nested = (filter: unknown) => ({ must: [{ nested: { key: 'n', filter } }] });
  expect(select(docs, nested({ must_not: [{ key: 'x', match: { value: 2 } }] }))).toEqual([0, 2]);
  expect(select(docs, nested({ must: [{ is_empty: { key: 'x' } }] }))).toEqual([2]);
  expect(select(docs, nested({ must: [{ key: 'x', values_count: { gte: 1 } }] }))).toEqual([0, 1]);
  expect(select(docs, nested({ must: [{ has_id: [0, 1, 2] }] }))).toEqual([]);
});

test('nested applies the whole inner filter to one array element at a time', () => {
  const docs = [
    {
      items: [
        { k: 'a', n: 1 },
        { k: 'b', n: 2 },
      ],
    },
    { items: [{ k: 'a', n: 2 }] },
  ];
  const inner = {
    must: [
      { key: 'k', match: { value: 'a' } },
      { key: 'n', match: { value: 2 } },
    ],
  };
  expect(select(docs, { must: [{ nested: { key: 'items', filter: inner } }] })).toEqual([1]);
  // Without nested, the two conditions may be met by different elements.
  expect(
    select(docs, {
      must: [
        { key: 'items[].k', match: { value: 'a' } },
        { key: 'items[].n', match: { value: 2 } },
      ],
    }),
  ).toEqual([0, 1]);
});

test('datetime ranges compare instants across spellings and zones', () => {
  const docs = [
    { t: '2024-01-02T03:00:00Z' },
    { t: '2024-01-02 04:00:00' },
    { t: '2024-01-02T05:00:00+02:00' },
  ];
  expect(select(docs, { must: [{ key: 't', range: { gt: '2024-01-02T03:30:00Z' } }] })).toEqual([
    1,
  ]);
});

test('geo conditions: strict box, haversine radius, polygon with a hole', () => {
  const docs = [
    { g: { lon: 10, lat: 50 } },
    { g: { lon: 10.5, lat: 50.5 } },
    { g: [{ lon: 30, lat: 5 }] },
  ];
  const box = { top_left: { lon: 9, lat: 51 }, bottom_right: { lon: 11, lat: 49 } };
  expect(select(docs, { must: [{ key: 'g', geo_bounding_box: box }] })).toEqual([0, 1]);
  const radius = { center: { lon: 10, lat: 50.1 }, radius: 12_000 };
  expect(select(docs, { must: [{ key: 'g', geo_radius: radius }] })).toEqual([0]);
  const ring = (a: number, b: number) => ({
    points: [
      { lon: a, lat: a + 40 },
      { lon: b, lat: a + 40 },
      { lon: b, lat: b + 40 },
      { lon: a, lat: b + 40 },
      { lon: a, lat: a + 40 },
    ],
  });
  const polygon = { exterior: ring(9, 11), interiors: [ring(10.4, 10.6)] };
  expect(select(docs, { must: [{ key: 'g', geo_polygon: polygon }] })).toEqual([0]);
});

describe('is_empty and is_null flags on an indexed key describe all its values together', () => {
  // What qdrant-edge 0.9.0 answered for these points, with and without an index on n[].k.
  const docs: Record<string, unknown>[] = [
    { n: [{ k: null }] }, // 0
    { n: [{ k: null }, {}] }, // 1
    { n: [{ k: [] }] }, // 2
    { n: [{ k: [null] }] }, // 3
    { n: [{ k: [null, 'a'] }] }, // 4
    { n: [{ k: null }, { k: 'a' }] }, // 5
    { n: [] }, // 6
    {}, // 7
    { n: [{ k: 'a' }, { k: [] }] }, // 8
    { n: [{ k: 5 }] }, // 9
  ];
  const indexed: FilterContext = {
    tokenizerFor: () => undefined,
    fieldIndexes: new Map([['n[].k', {}]]),
  };
  const ids = (filter: unknown, context: FilterContext) => {
    const parsed = parseFilter(filter)!;
    return docs.flatMap((payload, id) => (matchesFilter(parsed, id, payload, context) ? [id] : []));
  };
  const CONDITIONS: [string, (k: string) => unknown][] = [
    ['is_empty', (k) => ({ is_empty: { key: k } })],
    ['is_null', (k) => ({ is_null: { key: k } })],
    ['is_empty: true', (k) => ({ key: k, is_empty: true })],
    ['is_empty: false', (k) => ({ key: k, is_empty: false })],
    ['is_null: true', (k) => ({ key: k, is_null: true })],
    ['is_null: false', (k) => ({ key: k, is_null: false })],
  ];
  const EXPECTED: Record<string, number[][]> = {
    // top level without index, with index, nested (each element, index or not)
    is_empty: [
      [0, 1, 2, 6, 7],
      [0, 1, 2, 6, 7],
      [0, 1, 2, 5, 8],
    ],
    is_null: [
      [0, 1, 3, 4, 5],
      [0, 1, 3, 4, 5],
      [0, 1, 3, 4, 5],
    ],
    'is_empty: true': [
      [0, 1, 2, 5, 6, 7, 8],
      [0, 1, 2, 6, 7],
      [0, 1, 2, 5, 8],
    ],
    'is_empty: false': [
      [3, 4, 5, 8, 9],
      [3, 4, 5, 8, 9],
      [3, 4, 5, 8, 9],
    ],
    'is_null: true': [
      [0, 1, 3, 4, 5],
      [0, 1, 3, 4, 5],
      [0, 1, 3, 4, 5],
    ],
    'is_null: false': [
      [2, 5, 6, 7, 8, 9],
      [2, 6, 7, 8, 9],
      [1, 2, 5, 8, 9],
    ],
  };

  test.each(CONDITIONS)('%s', (name, condition) => {
    const top = { must: [condition('n[].k')] };
    const nested = { must: [{ nested: { key: 'n', filter: { must: [condition('k')] } } }] };
    expect([ids(top, NO_INDEXES), ids(top, indexed), ids(nested, NO_INDEXES)]).toEqual(
      EXPECTED[name],
    );
    // Qdrant answers the nested form from the index only when its planner takes candidates
    // from it (a must of its own); the engine asks each element, as Qdrant documents.
    expect(ids(nested, indexed)).toEqual(EXPECTED[name]![2]);
  });
});
