import { describe, expect, test } from '@jest/globals';
import { EngineError } from '../errors.js';
import { parseFilter } from './parse.js';

/** The error parseFilter throws for `raw`, or a failure when it accepts it. */
function refusal(raw: unknown): EngineError {
  try {
    parseFilter(raw);
  } catch (error) {
    if (error instanceof EngineError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

const must = (condition: unknown) => ({ must: [condition] });
const field = (extra: Record<string, unknown>) => must({ key: 'color', ...extra });
const ring = (n: number) => ({
  points: [
    ...Array.from({ length: n - 1 }, (_, i) => ({ lon: i, lat: i * i })),
    { lon: 0, lat: 0 },
  ],
});

/** Every shape Qdrant's serde types refuse, or this engine refuses with a reason. */
const MALFORMED: [string, unknown, RegExp][] = [
  ['a misspelt key', must({ kye: 'color', match: { value: 'red' } }), /unknown field `kye`/],
  ['an unknown filter clause', { mustt: [{ has_id: [1] }] }, /unknown field `mustt`/],
  ['a bare condition as a filter', { has_id: [1] }, /unknown field `has_id`/],
  ['a misspelt field-condition key', field({ mtch: { value: 'red' } }), /unknown field `mtch`/],
  ['an extra key on a field condition', field({ match: { value: 'r' }, x: 1 }), /field `x`/],
  ['an unknown match variant', field({ match: { regex: 'r.*' } }), /unknown field `regex`/],
  ['an empty match', field({ match: {} }), /exactly one of/],
  ['two match variants', field({ match: { value: 'a', any: ['b'] } }), /exactly one of/],
  ['a float match value', field({ match: { value: 1.5 } }), /invalid type: floating point/],
  ['an object match value', field({ match: { value: {} } }), /invalid type: a map/],
  ['a match value out of i64', field({ match: { value: 2 ** 64 } }), /invalid type/],
  ['mixed match any', field({ match: { any: ['a', 1] } }), /AnyVariants/],
  ['match any not a list', field({ match: { any: 'a' } }), /invalid type/],
  ['a numeric text match', field({ match: { text: 1 } }), /expected a string/],
  ['a numeric prefix', field({ match: { prefix: 1 } }), /expected a string/],
  ['a match that is a string', field({ match: 'red' }), /invalid type: string/],
  ['an unknown range bound', field({ range: { gtt: 1 } }), /unknown field `gtt`/],
  ['a boolean range bound', field({ range: { gt: true } }), /invalid type: boolean/],
  ['a bad datetime bound', field({ range: { gt: 'yesterday' } }), /RFC3339/],
  ['mixed range bounds', field({ range: { gt: 1, lt: '2024-01-01' } }), /datetime string/],
  ['a negative values_count', field({ values_count: { gt: -1 } }), /expected usize/],
  ['a fractional values_count', field({ values_count: { lt: 1.5 } }), /expected usize/],
  ['a string is_empty flag', field({ is_empty: 'yes' }), /expected a boolean/],
  [
    'a box without a corner',
    field({ geo_bounding_box: { top_left: { lon: 1, lat: 1 } } }),
    /missing field `bottom_right`/,
  ],
  ['a radius without a center', field({ geo_radius: { radius: 10 } }), /missing field `center`/],
  [
    'a geo point out of range',
    field({ geo_radius: { center: { lon: 200, lat: 0 }, radius: 1 } }),
    /lon must be/,
  ],
  [
    'a geo point with an extra key',
    field({ geo_radius: { center: { lon: 1, lat: 0, alt: 3 }, radius: 1 } }),
    /unknown field `alt`/,
  ],
  ['a polygon of three points', field({ geo_polygon: { exterior: ring(3) } }), /at least 4, got 3/],
  [
    'an open polygon',
    field({
      geo_polygon: {
        exterior: {
          points: [
            { lon: 0, lat: 0 },
            { lon: 1, lat: 0 },
            { lon: 1, lat: 1 },
            { lon: 0, lat: 1 },
          ],
        },
      },
    }),
    /first and the last/,
  ],
  ['a non-string key', must({ key: 1, match: { value: 'a' } }), /invalid type: integer/],
  ['an invalid key path', must({ key: 'a..b', match: { value: 'a' } }), /Invalid json path/],
  ['is_empty naming a field by string', must({ is_empty: 'color' }), /invalid type: string/],
  ['is_null with an extra key', must({ is_null: { key: 'c', x: 1 } }), /unknown field `x`/],
  ['has_id not a list', must({ has_id: 1 }), /invalid type: integer/],
  ['has_id with a bad id', must({ has_id: [-1] }), /ExtendedPointId/],
  ['has_vector not a string', must({ has_vector: 1 }), /expected a string/],
  ['nested without a filter', must({ nested: { key: 'n' } }), /missing field `filter`/],
  ['nested with an unknown key', must({ nested: { key: 'n', filter: {}, x: 1 } }), /field `x`/],
  [
    'nested with a misspelt inner key',
    must({ nested: { key: 'n', filter: must({ kye: 'a' }) } }),
    /unknown field `kye`/,
  ],
  ['an empty condition', must({}), /empty condition/],
  ['a condition of nulls', must({ must: null }), /empty condition/],
  ['a null condition', must(null), /invalid type: null/],
  ['a string condition', must('color'), /invalid type: string/],
  ['two kinds in one condition', must({ has_id: [1], must: [] }), /exactly one kind/],
  ['min_should without min_count', { min_should: { conditions: [] } }, /missing field `min_count`/],
  ['a negative min_count', { min_should: { conditions: [], min_count: -1 } }, /expected usize/],
  ['a filter that is a list', [{ has_id: [1] }], /invalid type: a sequence/],
];

describe('refuses every malformed filter with a 400 naming what is wrong', () => {
  test.each(MALFORMED)('%s', (_what, raw, message) => {
    const error = refusal(raw);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Format error in JSON body: filter/);
    expect(error.message).toMatch(message);
  });

  test('a condition Qdrant recognises but this engine does not evaluate is a 400 saying so', () => {
    const error = refusal(must({ slice: { total: 2, index: 0 } }));
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'Bad request: filter.must[0]: the `slice` condition is not supported by this engine',
    );
  });

  test('a field condition without a kind is Qdrant’s 422 validation error', () => {
    const error = refusal(must({ key: 'color' }));
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/At least one field condition must be specified/);
  });

  test('names the path of a deep mistake', () => {
    const raw = { should: [{ must_not: [{ key: 'a', match: { value: 1 } }, { kye: 'b' }] }] };
    expect(refusal(raw).message).toMatch(
      /^Format error in JSON body: filter\.should\[0\]\.must_not\[1\]: unknown field `kye`/,
    );
  });
});

describe('accepts every shape Qdrant accepts', () => {
  const polygon = { exterior: ring(4), interiors: [ring(5)] };
  const ACCEPTED: [string, unknown][] = [
    ['no filter', null],
    ['an empty filter', {}],
    ['null clauses', { must: null, should: null, must_not: null, min_should: null }],
    ['a single condition instead of a list', { must: { has_id: [1] } }],
    ['empty clauses', { must: [], should: [], must_not: [] }],
    ...[
      { value: 'red' },
      { value: -3 },
      { value: true },
      { text: 'a b' },
      { text_any: 'a b' },
      { phrase: 'a b' },
      { prefix: 're' },
      { substring: 'e' },
      { any: [] },
      { any: ['a', 'b'] },
      { except: [1, 2] },
    ].map((match): [string, unknown] => [`match ${Object.keys(match)[0]}`, field({ match })]),
    ['a number range', field({ range: { gt: 1, lte: 2.5, lt: null } })],
    ['an empty range', field({ range: {} })],
    ['a datetime range', field({ range: { gte: '2024-01-01', lt: '2024-01-02T03:04:05Z' } })],
    [
      'a box',
      field({
        geo_bounding_box: { top_left: { lon: 1, lat: 2 }, bottom_right: { lon: 2, lat: 1 } },
      }),
    ],
    ['a radius', field({ geo_radius: { center: { lon: 1, lat: 2 }, radius: 1000 } })],
    ['a polygon with a hole', field({ geo_polygon: polygon })],
    ['values_count', field({ values_count: { gte: 1, lt: 3 } })],
    ['the is_empty flag', field({ is_empty: false })],
    ['the is_null flag', field({ is_null: true })],
    ['two kinds ORed in one field condition', field({ match: { value: 1 }, range: { gt: 5 } })],
    ['is_empty', must({ is_empty: { key: 'a.b[]' } })],
    ['is_null', must({ is_null: { key: 'a' } })],
    ['has_id', must({ has_id: [1, '550e8400-e29b-41d4-a716-446655440000'] })],
    ['has_vector', must({ has_vector: '' })],
    [
      'nested',
      must({ nested: { key: 'n[]', filter: { must_not: [{ key: 'k', match: { value: 1 } }] } } }),
    ],
    [
      'a filter condition',
      must({ should: [{ has_id: [1] }], min_should: { conditions: [], min_count: 0 } }),
    ],
    [
      'min_should',
      { min_should: { conditions: [{ has_id: [1] }, { has_vector: '' }], min_count: 1 } },
    ],
  ];

  test.each(ACCEPTED)('%s', (_what, raw) => {
    expect(() => parseFilter(raw)).not.toThrow();
  });

  test('reads each kind into its parsed form', () => {
    const parsed = parseFilter({
      must: [
        { key: 'kw', match: { prefix: 're' } },
        { nested: { key: 'n', filter: {} } },
        { is_null: { key: 'x' } },
      ],
    });
    expect(parsed?.must?.[0]).toMatchObject({
      kind: 'field',
      match: { kind: 'prefix', text: 're' },
    });
    expect(parsed?.must?.[1]).toMatchObject({ kind: 'nested', key: 'n[]' });
    expect(parsed?.must?.[2]).toMatchObject({ kind: 'is_null', key: 'x' });
  });
});
