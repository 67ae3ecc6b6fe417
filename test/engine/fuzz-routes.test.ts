/**
 * A property-based fuzz of every engine route: bodies Qdrant accepts (every query
 * variant, prefetch and fusion, groups, facet, conditional writes, index and collection
 * bodies) are mutated at a random place (a field dropped, renamed or added, a value
 * replaced by one of another type, a number past every bound, a wrap in an array, deep
 * nesting) and sent. The property: no answer is a 5xx, every answer is one of Qdrant's
 * envelopes, and the engine still answers afterwards. SVC_FUZZ_ROUTES_CASES sets the
 * number of requests (default 3000), SVC_FUZZ_ROUTES_SEED the seed.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { seededRandom } from '../../common/seeded-random.js';
import { call, callRaw, startEngine } from './support/engine-process.js';
import type { EngineProcess } from './support/engine-process.js';
import { Literal, writeJson } from './support/json-literal.js';

const CASES = Number(process.env.SVC_FUZZ_ROUTES_CASES ?? 3000);
const SEED = Number(process.env.SVC_FUZZ_ROUTES_SEED ?? 18);

type Json = Record<string, unknown>;

let engine: EngineProcess;

beforeAll(async () => {
  engine = await startEngine({ env: { SVC_ENGINE_INDEX_THRESHOLD: '50' } });
});

afterAll(async () => {
  await engine?.dispose();
});

test(`${CASES} mutated bodies on every route: no 5xx, an envelope on each, and the engine still answers`, async () => {
  const random = seededRandom(SEED);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => random() < p;
  const v = () => [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1];
  const id = () => pick<unknown>([int(40), int(40), '00000000-0000-0000-0000-00000000000a']);
  const filter = (): Json =>
    pick([
      { must: [{ key: 'kw', match: { value: pick(['a', 'b']) } }] },
      { should: [{ key: 'n', range: { gte: int(20) } }, { has_id: [id(), id()] }] },
      { must_not: [{ is_empty: { key: 'kw' } }] },
    ]);
  const vectorInput = () => (chance(0.3) ? id() : v());
  const pair = () => ({ positive: vectorInput(), negative: vectorInput() });
  const query = (): unknown =>
    pick<() => unknown>([
      () => v(),
      () => id(),
      () => ({ nearest: vectorInput() }),
      () => ({
        recommend: {
          positive: [vectorInput()],
          negative: [vectorInput()],
          strategy: pick(['average_vector', 'best_score', 'sum_scores']),
        },
      }),
      () => ({ discover: { target: vectorInput(), context: [pair()] } }),
      () => ({ context: [pair(), pair()] }),
      () => ({ order_by: { key: 'n', direction: pick(['asc', 'desc']), start_from: int(10) } }),
      () => ({ sample: 'random' }),
    ])();
  const prefetch = (): Json => ({ query: query(), limit: 1 + int(20), filter: filter() });
  const queryBody = (): Json => {
    const body: Json = { limit: 1 + int(10), with_payload: true, with_vector: chance(0.3) };
    if (chance(0.4)) {
      body.prefetch = [prefetch(), prefetch()];
      body.query = pick<unknown>([
        { fusion: 'rrf' },
        { fusion: 'dbsf' },
        { rrf: { k: 1 + int(60), weights: [1, 2] } },
        v(),
      ]);
    } else body.query = query();
    if (chance(0.3)) body.filter = filter();
    if (chance(0.2)) body.offset = int(5);
    if (chance(0.2)) body.score_threshold = random();
    return body;
  };
  const point = () => ({ id: id(), vector: v(), payload: { kw: pick(['a', 'b']), n: int(30) } });
  const routes: [string, string, () => Json][] = [
    ['PUT', '/points?wait=true', () => ({ points: [point(), point()] })],
    [
      'PUT',
      '/points?wait=true',
      () => ({ points: [point()], update_filter: filter(), update_mode: 'update_only' }),
    ],
    ['PUT', '/points', () => ({ batch: { ids: [id()], vectors: [v()], payloads: [{ n: 1 }] } })],
    [
      'PUT',
      '/points/vectors',
      () => ({ points: [{ id: id(), vector: v() }], update_filter: filter() }),
    ],
    ['POST', '/points/delete', () => (chance(0.5) ? { points: [id()] } : { filter: filter() })],
    ['POST', '/points/payload', () => ({ points: [id()], payload: { n: int(30) }, key: 'obj' })],
    ['PUT', '/points/payload', () => ({ filter: filter(), payload: { kw: 'a', n: int(30) } })],
    ['POST', '/points/payload/delete', () => ({ points: [id()], keys: ['obj'] })],
    ['POST', '/points/payload/clear', () => ({ points: [id()] })],
    [
      'PUT',
      '/index',
      () => ({ field_name: pick(['kw', 'n']), field_schema: pick(['keyword', 'integer']) }),
    ],
    [
      'POST',
      '/points/search',
      () => ({
        vector: v(),
        limit: 1 + int(10),
        filter: filter(),
        params: { hnsw_ef: 16, exact: chance(0.5) },
      }),
    ],
    ['POST', '/points/search/batch', () => ({ searches: [{ vector: v(), limit: 3 }] })],
    [
      'POST',
      '/points/search/groups',
      () => ({ vector: v(), group_by: 'kw', group_size: 1 + int(3), limit: 1 + int(4) }),
    ],
    ['POST', '/points/query', queryBody],
    ['POST', '/points/query/batch', () => ({ searches: [queryBody(), queryBody()] })],
    [
      'POST',
      '/points/query/groups',
      () => ({ query: query(), group_by: pick(['kw', 'n']), group_size: 2, limit: 3 }),
    ],
    [
      'POST',
      '/points/scroll',
      () => ({ limit: 1 + int(10), filter: filter(), order_by: chance(0.5) ? 'n' : undefined }),
    ],
    ['POST', '/points/count', () => ({ filter: filter(), exact: true })],
    ['POST', '/points', () => ({ ids: [id(), id()], with_vectors: true })],
    ['POST', '/facet', () => ({ key: pick(['kw', 'n']), limit: 1 + int(5), filter: filter() })],
    ['POST', '/points/recommend', () => ({ positive: [id()], limit: 3 })],
    ['PATCH', '', () => ({ optimizers_config: { indexing_threshold: 10 } })],
  ];
  const numbers = [
    -1,
    0,
    0.5,
    2 ** 31,
    1e12,
    new Literal('18446744073709551615'),
    new Literal('4294967296'),
    new Literal('1e400'),
    new Literal('-0'),
  ];
  const oddValue = (): unknown =>
    pick<() => unknown>([
      () => pick(numbers),
      () => pick(['', 'x', 'é😀\u0000', 'x'.repeat(3000), '2024-01-01T00:00:00Z']),
      () => pick([true, false, null]),
      () => [],
      () => ({}),
      () => [pick(numbers), pick(numbers)],
      () => {
        let deep: unknown = 1;
        for (let i = 0; i < pick([100, 126, 127, 200]); i++) deep = [deep];
        return deep;
      },
    ])();
  const fieldNames = [
    'limit',
    'offset',
    'query',
    'prefetch',
    'filter',
    'xyz',
    'shard_key',
    'with_vectors',
    'group_by',
    'lookup_from',
  ];

  /** Mutates one randomly chosen place of a JSON value (in place where it can). */
  const mutate = (value: unknown, depth = 0): unknown => {
    const isObject = typeof value === 'object' && value !== null && !(value instanceof Literal);
    if (!isObject || depth > 6 || chance(0.25)) {
      return pick<() => unknown>([
        () => oddValue(),
        () => [value],
        () => ({ value }),
        () => (typeof value === 'number' ? pick(numbers) : oddValue()),
      ])();
    }
    if (Array.isArray(value)) {
      if (value.length === 0 || chance(0.2)) return [...value, oddValue()];
      const i = int(value.length);
      value[i] = mutate(value[i], depth + 1);
      return value;
    }
    const object = value as Json;
    const keys = Object.keys(object);
    const roll = random();
    if (keys.length === 0 || roll < 0.15) object[pick(fieldNames)] = oddValue();
    else if (roll < 0.3) delete object[pick(keys)];
    else if (roll < 0.4) {
      const key = pick(keys);
      object[`${key}s`] = object[key];
      delete object[key];
    } else {
      const key = pick(keys);
      object[key] = mutate(object[key], depth + 1);
    }
    return object;
  };

  const created = await call(engine.url, 'PUT', '/collections/f', {
    vectors: { size: 3, distance: 'Euclid' },
  });
  expect(created.status).toBe(200);
  const seeded = await call(engine.url, 'PUT', '/collections/f/points?wait=true', {
    points: Array.from({ length: 60 }, (_, i) => ({
      id: i,
      vector: v(),
      payload: { kw: pick(['a', 'b', 'c']), n: i },
    })),
  });
  expect(seeded.status).toBe(200);
  await call(engine.url, 'PUT', '/collections/f/index?wait=true', {
    field_name: 'n',
    field_schema: 'integer',
  });
  await call(engine.url, 'PUT', '/collections/f/index?wait=true', {
    field_name: 'kw',
    field_schema: 'keyword',
  });

  const statuses = new Map<number, number>();
  const failures: string[] = [];
  for (let i = 0; i < CASES; i++) {
    const [method, path, template] = pick(routes);
    // A fifth go as generated, so the routes' success paths run under the same load.
    const body = chance(0.2) ? template() : mutate(template());
    const text = writeJson(body);
    const res = await callRaw(engine.url, method, `/collections/f${path}`, text);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const enveloped =
      res.status === 200
        ? 'result' in res.body
        : typeof (res.body.status as Json)?.error === 'string';
    if (res.status >= 500 || !enveloped) {
      failures.push(
        `${method} ${path} ${text.slice(0, 400)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
      );
    }
  }
  console.log(
    `fuzz-routes: ${CASES} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  expect(failures).toEqual([]);
  // Both kinds of answer: the bodies reached the routes' logic, not only the parser.
  expect(statuses.get(200)).toBeGreaterThan(CASES / 10);
  expect(statuses.get(400)).toBeGreaterThan(CASES / 10);
  const after = await call(engine.url, 'POST', '/collections/f/points/count', {});
  expect(after.status).toBe(200);
  const info = await call(engine.url, 'GET', '/collections/f');
  expect(info.status).toBe(200);
}, 600_000);
