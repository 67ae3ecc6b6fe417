/**
 * Bodies a fuzzer sends the engine (issue 17, items 14 to 16): JSON nested thousands of
 * levels deep in filters, `lookup_from`, index schemas and settings; `limit` and `offset`
 * of 1e12, 2^32 and 2^64-1; vector components and other numbers JSON.parse reads as
 * infinite. Each is a 400 in Qdrant's envelope naming the limit, never a 5xx, and nothing
 * refused is stored. A seeded fuzz of the write and read routes closes the file: no 5xx,
 * and the engine restarts after a SIGKILL with nothing to set aside.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { seededRandom } from '../../common/seeded-random.js';
import { call, callRaw, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';
import { Literal, writeJson } from './support/json-literal.js';

let engine: EngineProcess;
const api = (method: string, path: string, body?: unknown) => call(engine.url, method, path, body);
const raw = (method: string, path: string, text: string | Buffer) =>
  callRaw(engine.url, method, path, text);
const errorOf = (res: { body: { status?: unknown } }) =>
  (res.body.status as { error?: string } | undefined)?.error ?? '';

const POINTS = [
  { id: 1, vector: [1, 0], payload: { n: 1 } },
  { id: 2, vector: [0, 1], payload: { n: 2 } },
];

beforeAll(async () => {
  engine = await startEngine();
  await api('PUT', '/collections/h', { vectors: { size: 2, distance: 'Dot' } });
  await api('PUT', '/collections/h/points?wait=true', { points: POINTS });
});
afterAll(async () => {
  await engine.dispose();
});

/** `levels` nested `must` clauses, as text (JSON.stringify would recurse as deep). */
const deepFilter = (levels: number) =>
  `${'{"must":['.repeat(levels)}{"has_id":[1]}${']}'.repeat(levels)}`;
/** `levels` nested objects, as text. */
const deepObject = (levels: number) => `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`;

const TOO_DEEP =
  /^Format error in JSON body: recursion limit exceeded at byte \d+: objects and arrays may nest at most 127 levels deep$/;

describe('deeply nested JSON', () => {
  test('returns 400 naming the limit for 10,000 levels on every route', async () => {
    const filter = deepFilter(5000);
    const object = deepObject(10_000);
    const bodies: [string, string, string][] = [
      ['POST', '/points/search', `{"vector":[1,0],"limit":1,"filter":${filter}}`],
      [
        'POST',
        '/points/search/batch',
        `{"searches":[{"vector":[1,0],"limit":1,"filter":${filter}}]}`,
      ],
      ['POST', '/points/query', `{"query":1,"lookup_from":{"collection":"h","vector":${object}}}`],
      ['POST', '/points/query', `{"query":[1,0],"filter":${filter}}`],
      ['POST', '/points/query/batch', `{"searches":[{"query":1,"lookup_from":${object}}]}`],
      ['POST', '/points/scroll', `{"filter":${filter}}`],
      ['POST', '/points/count', `{"filter":${filter}}`],
      ['POST', '/points', `{"ids":[1],"with_payload":${object}}`],
      ['PUT', '/points?wait=true', `{"points":[{"id":3,"vector":[1,1],"payload":${object}}]}`],
      ['PUT', '/points/vectors?wait=true', `{"points":[{"id":1,"vector":${object}}]}`],
      ['POST', '/points/delete?wait=true', `{"filter":${filter}}`],
      ['POST', '/points/payload?wait=true', `{"points":[1],"payload":${object}}`],
      ['PUT', '/points/payload?wait=true', `{"points":[1],"payload":${object}}`],
      ['POST', '/points/payload/delete?wait=true', `{"points":[1],"keys":${object}}`],
      ['POST', '/points/payload/clear?wait=true', `{"filter":${filter}}`],
      ['PUT', '/index?wait=true', `{"field_name":"n","field_schema":${object}}`],
    ];
    for (const [method, path, body] of bodies) {
      const res = await raw(method, `/collections/h${path}`, body);
      expect([method, path, res.status, errorOf(res)]).toEqual([
        method,
        path,
        400,
        expect.stringMatching(TOO_DEEP),
      ]);
    }
    const settings = `{"vectors":{"size":2,"distance":"Dot"},"hnsw_config":${object}}`;
    const created = await raw('PUT', '/collections/deep', settings);
    expect([created.status, errorOf(created)]).toEqual([400, expect.stringMatching(TOO_DEEP)]);
    expect((await api('GET', '/collections/deep/exists')).body.result).toEqual({ exists: false });
    const all = await api('POST', '/collections/h/points/scroll', { with_vector: true });
    expect((all.body.result as { points: unknown[] }).points).toEqual(POINTS);
  });

  test('takes a filter nested 127 levels deep and refuses one level more', async () => {
    // {filter: F}: the body, then two levels per `must` list, then {has_id: [...]}.
    const deepest = `{"filter":${deepFilter(62)}}`;
    const res = await raw('POST', '/collections/h/points/count', deepest);
    expect([res.status, res.body.result]).toEqual([200, { count: 1 }]);
    // A single condition may stand where a list would: one level more, not two.
    const oneMore = `{"filter":{"must":${deepFilter(62)}}}`;
    const refused = await raw('POST', '/collections/h/points/count', oneMore);
    expect([refused.status, errorOf(refused)]).toEqual([400, expect.stringMatching(TOO_DEEP)]);
    // The 128th level is the list of ids.
    expect(errorOf(refused)).toContain(`at byte ${oneMore.lastIndexOf('[1]')}:`);
  });

  test('refuses 16 MB of opening brackets without parsing them', async () => {
    const res = await raw('POST', '/collections/h/points/scroll', Buffer.alloc(16 << 20, '['));
    expect([res.status, errorOf(res)]).toEqual([400, expect.stringMatching(TOO_DEEP)]);
    expect(errorOf(res)).toContain('at byte 127:');
  });
});

describe('limit and offset', () => {
  const huge = ['1e12', '18446744073709551615', '4294967296', '100001'];
  const reads: [string, (field: string) => string][] = [
    ['/points/search', (f) => `{"vector":[1,0],${f}}`],
    ['/points/search/batch', (f) => `{"searches":[{"vector":[1,0],${f}}]}`],
    ['/points/query', (f) => `{"query":[1,0],${f}}`],
    ['/points/query', (f) => `{${f}}`],
    ['/points/query', (f) => `{"query":{"order_by":"n"},${f}}`],
    ['/points/query/batch', (f) => `{"searches":[{"query":2,${f}}]}`],
    ['/points/scroll', (f) => `{${f}}`],
  ];

  test('returns 400 naming the maximum (100,000) for a limit of 1e12, 2^64-1, 2^32 or 100,001', async () => {
    for (const [path, body] of reads) {
      for (const limit of huge) {
        const res = await raw('POST', `/collections/h${path}`, body(`"limit":${limit}`));
        expect([path, limit, res.status, errorOf(res)]).toEqual([
          path,
          limit,
          400,
          expect.stringMatching(
            /^Bad request: limit: \d+ is more than this engine's maximum of 100000$/,
          ),
        ]);
      }
    }
  });

  test('returns 400 naming the maximum (1,000,000) for an offset of 1e12, 2^64-1, 2^32 or 1,000,001', async () => {
    for (const [path, body] of reads.filter(([p]) => p !== '/points/scroll')) {
      for (const offset of ['1e12', '18446744073709551615', '4294967296', '1000001']) {
        const res = await raw(
          'POST',
          `/collections/h${path}`,
          body(`"limit":1,"offset":${offset}`),
        );
        expect([path, offset, res.status, errorOf(res)]).toEqual([
          path,
          offset,
          400,
          expect.stringMatching(
            /^Bad request: offset: \d+ is more than this engine's maximum of 1000000$/,
          ),
        ]);
      }
    }
  });

  test('returns 400 for an hnsw_ef above 100,000 and for a limit that is not a number JSON keeps', async () => {
    const ef = await raw(
      'POST',
      '/collections/h/points/search',
      '{"vector":[1,0],"limit":1,"params":{"hnsw_ef":1e12}}',
    );
    expect([ef.status, errorOf(ef)]).toEqual([400, expect.stringContaining('maximum of 100000')]);
    const infinite = await raw('POST', '/collections/h/points/scroll', '{"limit":1e400}');
    expect([infinite.status, errorOf(infinite)]).toEqual([
      400,
      'Format error in JSON body: limit: invalid value Infinity, expected usize',
    ]);
  });

  test('answers the maximum limit and offset themselves', async () => {
    const search = await api('POST', '/collections/h/points/search', {
      vector: [1, 0],
      limit: 100_000,
      offset: 1,
    });
    expect([search.status, (search.body.result as { id: number }[]).map((p) => p.id)]).toEqual([
      200,
      [2],
    ]);
    const query = await api('POST', '/collections/h/points/query', { limit: 1, offset: 1_000_000 });
    expect([query.status, query.body.result]).toEqual([200, { points: [] }]);
    const scroll = await api('POST', '/collections/h/points/scroll', { limit: 100_000 });
    expect((scroll.body.result as { points: unknown[] }).points).toHaveLength(2);
  });
});

describe('numbers that are not finite', () => {
  const refusals: [string, string, string][] = [
    ['PUT', '/points?wait=true', '{"points":[{"id":5,"vector":[1e400,0]}]}'],
    ['PUT', '/points?wait=true', '{"points":[{"id":5,"vector":[0,-1e400]}]}'],
    // Finite as a double, beyond float32: stored it would be infinite too.
    ['PUT', '/points?wait=true', '{"points":[{"id":5,"vector":[1e39,0]}]}'],
    ['PUT', '/points?wait=true', '{"batch":{"ids":[5],"vectors":[[1e400,0]]}}'],
    [
      'PUT',
      '/points?wait=true',
      '{"points":[{"id":5,"vector":[1,0],"payload":{"x":[1,{"y":1e400}]}}]}',
    ],
    ['PUT', '/points/vectors?wait=true', '{"points":[{"id":1,"vector":[1e400,0]}]}'],
    ['POST', '/points/payload?wait=true', '{"points":[1],"payload":{"x":-1e400}}'],
    ['PUT', '/points/payload?wait=true', '{"points":[1],"payload":{"x":1e400}}'],
    ['POST', '/points/search', '{"vector":[1e400,0],"limit":1}'],
    ['POST', '/points/search', '{"vector":[1,0],"limit":1,"score_threshold":-1e400}'],
    ['POST', '/points/query', '{"query":{"nearest":[1e400,0]}}'],
    ['POST', '/points/count', '{"filter":{"must":[{"key":"n","range":{"gt":1e400}}]}}'],
    [
      'POST',
      '/points/count',
      '{"filter":{"must":[{"key":"g","geo_radius":{"center":{"lon":0,"lat":0},"radius":1e400}}]}}',
    ],
  ];

  test('returns 400 "number out of range" for 1e400 (and 1e39 in a vector) and stores nothing', async () => {
    for (const [method, path, body] of refusals) {
      const res = await raw(method, `/collections/h${path}`, body);
      expect([path, body, res.status, errorOf(res)]).toEqual([
        path,
        body,
        400,
        expect.stringMatching(/^Format error in JSON body: .*number out of range/),
      ]);
    }
    const all = await api('POST', '/collections/h/points/scroll', { with_vector: true });
    expect((all.body.result as { points: unknown[] }).points).toEqual(POINTS);
    const hits = await api('POST', '/collections/h/points/search', { vector: [1, 1], limit: 10 });
    expect((hits.body.result as { score: unknown }[]).map((h) => h.score)).toEqual([1, 1]);
  });

  test('returns 400 for NaN, which is not JSON', async () => {
    const res = await raw('PUT', '/collections/h/points', '{"points":[{"id":5,"vector":[NaN,0]}]}');
    expect([res.status, errorOf(res)]).toEqual([
      400,
      expect.stringMatching(/^Format error in JSON body/),
    ]);
  });
});

describe('fuzz', () => {
  test('random bodies on the write and read routes never answer 5xx, and a SIGKILL leaves nothing to set aside', async () => {
    const fuzzed = await startEngine();
    try {
      const cases = Number(process.env.SVC_FUZZ_CASES ?? 1000);
      const random = seededRandom(Number(process.env.SVC_FUZZ_SEED ?? 17));
      const int = (n: number) => Math.floor(random() * n);
      const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
      const keys = ['n', 'a', 'a.b', 'a[]', 'a[0].b', '"q.k"', '', 'ключ', '__proto__', 'x y'];
      const numbers = [
        0,
        1,
        -1,
        2,
        0.5,
        -0.25,
        3.4e38,
        1e-45,
        2 ** 31,
        2 ** 53 - 1,
        1e12,
        new Literal('1e400'),
        new Literal('-1e400'),
        new Literal('1e39'),
        new Literal('18446744073709551615'),
        new Literal('4294967296'),
        new Literal('-0'),
      ];
      const scalar = (): unknown =>
        pick<() => unknown>([
          () => pick(numbers),
          () => pick(['', 'x', 'é😀\u0000', 'x'.repeat(int(2000)), '2024-01-01T00:00:00Z']),
          () => pick([true, false, null]),
          () => '00000000-0000-0000-0000-000000000001',
        ])();
      const anyValue = (depth: number): unknown => {
        const roll = random();
        if (depth <= 0 || roll < 0.5) return scalar();
        if (roll < 0.7) return Array.from({ length: int(4) }, () => anyValue(depth - 1));
        if (roll < 0.75) {
          // Deep on purpose: around the limit, and far past it.
          const levels = pick([60, 120, 126, 127, 128, 300]);
          let v = scalar();
          for (let i = 0; i < levels; i++) v = random() < 0.5 ? [v] : { d: v };
          return v;
        }
        return Object.fromEntries(
          Array.from({ length: int(4) }, () => [pick(keys), anyValue(depth - 1)]),
        );
      };
      const vector = (): unknown => (random() < 0.8 ? [pick(numbers), pick(numbers)] : anyValue(2));
      const condition = (depth: number): unknown =>
        pick<() => unknown>([
          () => ({ key: pick(keys), match: { value: scalar() } }),
          () => ({ key: pick(keys), match: { any: [scalar(), scalar()] } }),
          () => ({ key: pick(keys), range: { gt: pick(numbers), lte: scalar() } }),
          () => ({ key: pick(keys), values_count: { gte: pick(numbers) } }),
          () => ({
            key: pick(keys),
            geo_radius: { center: { lon: scalar(), lat: 0 }, radius: scalar() },
          }),
          () => ({ has_id: [pick(numbers), scalar()] }),
          () => ({ is_empty: { key: pick(keys) } }),
          () => ({ nested: { key: pick(keys), filter: filter(depth - 1) } }),
          () => filter(depth - 1),
          () => anyValue(3),
        ])();
      const filter = (depth: number): unknown =>
        depth <= 0
          ? {}
          : Object.fromEntries(
              (['must', 'should', 'must_not'] as const)
                .filter(() => random() < 0.5)
                .map((k) => [k, Array.from({ length: int(3) }, () => condition(depth))]),
            );
      const maybe = (value: () => unknown) => (random() < 0.85 ? value() : anyValue(2));
      const readFields = () => ({
        limit: maybe(() => pick(numbers)),
        offset: maybe(() => pick(numbers)),
        filter: maybe(() => filter(3)),
        with_payload: maybe(() => pick([true, false, [pick(keys)], { exclude: [pick(keys)] }])),
        with_vector: maybe(() => pick([true, false])),
        score_threshold: maybe(() => pick(numbers)),
        params: maybe(() => ({ hnsw_ef: pick(numbers), exact: pick([true, false]) })),
      });
      const point = () => ({
        id: maybe(() => pick(numbers)),
        vector: vector(),
        payload: anyValue(4),
      });
      const routes: [string, string, () => unknown][] = [
        ['PUT', '/points?wait=true', () => ({ points: Array.from({ length: 1 + int(3) }, point) })],
        [
          'PUT',
          '/points',
          () => ({ batch: { ids: [pick(numbers)], vectors: [vector()], payloads: [anyValue(3)] } }),
        ],
        ['PUT', '/points/vectors', () => ({ points: [{ id: pick(numbers), vector: vector() }] })],
        [
          'POST',
          '/points/delete',
          () => (random() < 0.5 ? { points: [pick(numbers)] } : { filter: filter(3) }),
        ],
        [
          'POST',
          '/points/payload',
          () => ({ points: [pick(numbers)], payload: anyValue(4), key: maybe(() => pick(keys)) }),
        ],
        ['PUT', '/points/payload', () => ({ filter: filter(2), payload: anyValue(4) })],
        [
          'POST',
          '/points/payload/delete',
          () => ({ points: [pick(numbers)], keys: [pick(keys), anyValue(1)] }),
        ],
        ['POST', '/points/payload/clear', () => ({ filter: filter(2) })],
        [
          'PUT',
          '/index',
          () => ({
            field_name: pick(keys),
            field_schema: maybe(() => pick(['keyword', 'integer', 'float', 'text', 'datetime'])),
          }),
        ],
        ['POST', '/points/search', () => ({ vector: vector(), ...readFields() })],
        [
          'POST',
          '/points/search/batch',
          () => ({ searches: [{ vector: vector(), ...readFields() }] }),
        ],
        [
          'POST',
          '/points/query',
          () => ({
            query: maybe(() =>
              pick([vector(), pick(numbers), { nearest: vector() }, { order_by: pick(keys) }]),
            ),
            ...readFields(),
          }),
        ],
        [
          'POST',
          '/points/query/batch',
          () => ({ searches: [{ query: vector(), ...readFields() }] }),
        ],
        [
          'POST',
          '/points/scroll',
          () => ({
            ...readFields(),
            order_by: maybe(() => ({ key: pick(keys), start_from: scalar() })),
          }),
        ],
        ['POST', '/points/count', () => ({ filter: filter(4), exact: maybe(() => true) })],
        ['POST', '/points', () => ({ ids: [pick(numbers), scalar()], ...readFields() })],
      ];
      await call(fuzzed.url, 'PUT', '/collections/f', { vectors: { size: 2, distance: 'Cosine' } });
      const statuses = new Map<number, number>();
      const serverErrors: string[] = [];
      for (let i = 0; i < cases; i++) {
        const [method, path, body] = pick(routes);
        const text = writeJson(body());
        const res = await callRaw(fuzzed.url, method, `/collections/f${path}`, text);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500)
          serverErrors.push(`${method} ${path} ${text.slice(0, 300)}: ${errorOf(res)}`);
      }
      expect(serverErrors).toEqual([]);
      // Both kinds of answer, so the bodies reached the routes' logic.
      expect(statuses.get(200)).toBeGreaterThan(cases / 10);
      expect(statuses.get(400)).toBeGreaterThan(cases / 10);

      await fuzzed.kill();
      const restarted = await startEngine({ dataDir: fuzzed.dataDir });
      try {
        const telemetry = await call(restarted.url, 'GET', '/telemetry');
        expect(telemetry.body.result).toMatchObject({ recovery: { quarantined_records: 0 } });
        const count = await call(restarted.url, 'POST', '/collections/f/points/count', {});
        expect(count.status).toBe(200);
      } finally {
        await restarted.stop();
      }
    } finally {
      await fuzzed.dispose();
    }
  });
});
