/**
 * The filter language against Qdrant's own core, on its own: seeded random collections
 * (random payloads, random payload indexes) built in the engine over HTTP and in
 * qdrant-edge, then many random filters (every condition variant, see generate-filter.ts)
 * run through `points/count`, `points/scroll` and `points/search` on both, and some through
 * `points/delete`, the full state compared after each delete. Every comparison is one
 * case. SVC_FILTER_DIFF_CASES sets how many (default 3000), SVC_FILTER_DIFF_SEED the
 * first collection's seed; a failure names the seed to replay with. Needs the venv: node
 * hack/python/ensure-venv.mjs.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { call, startEngine } from '../support/engine-process.js';
import type { EngineProcess } from '../support/engine-process.js';
import { compareExact, compareValue } from './compare.js';
import type { PointOut } from './compare.js';
import { EdgeDriver } from './edge-driver.js';
import { randomPayload, randomUuid, randomVector } from './generate-data.js';
import { randomFilter } from './generate-filter.js';
import { Prng } from './prng.js';

const CASES = Number(process.env.SVC_FILTER_DIFF_CASES ?? 3000);
const FIRST_SEED = Number(process.env.SVC_FILTER_DIFF_SEED ?? 20251125);
const FILTERS_PER_COLLECTION = 60;

/**
 * Keys the generated payloads keep one type in, with that type's index schemas; the keys
 * generate-filter.ts knows may be indexed (it spells their ranges with one bound of each
 * side, see `bounds` there).
 */
const INDEXABLE: [string, unknown[]][] = [
  ['kw', ['keyword']],
  ['int', ['integer', { type: 'integer', lookup: false, range: true }]],
  ['flt', ['float']],
  ['dt', ['datetime']],
  ['geo', ['geo']],
  ['u', ['uuid']],
  ['obj.a.b', ['integer']],
  ['nested[].k', ['keyword']],
  [
    'txt',
    [
      'text',
      { type: 'text', tokenizer: 'whitespace' },
      { type: 'text', tokenizer: 'prefix', min_token_len: 2, max_token_len: 6 },
      { type: 'text', lowercase: false },
      { type: 'text', phrase_matching: true },
    ],
  ],
];

let engine: EngineProcess;
let driver: EdgeDriver;

beforeAll(async () => {
  [engine, driver] = await Promise.all([startEngine(), EdgeDriver.start()]);
});

afterAll(async () => {
  await Promise.all([engine?.dispose(), driver?.stop()]);
});

type Json = Record<string, unknown>;

/** Runs one collection's filters on both sides; resolves with the number of comparisons. */
async function runCollection(seed: number): Promise<number> {
  const rng = new Prng(seed);
  const name = `filters_${seed}`;
  const uuids = Array.from({ length: 12 }, () => randomUuid(rng));
  const idPool: (number | string)[] = [...Array.from({ length: 60 }, (_, i) => i * 3), ...uuids];
  const engineCall = (method: string, path: string, body?: unknown) =>
    call(engine.url, method, `/collections/${name}${path}`, body);
  let checks = 0;

  await engineCall('PUT', '', { vectors: { size: 2, distance: 'Dot' } });
  await driver.ok({ cmd: 'create', name, size: 2, distance: 'Dot' });
  const points = [...new Set(Array.from({ length: rng.int(30, 120) }, () => rng.pick(idPool)))].map(
    (id) => {
      const payload = randomPayload(rng, uuids);
      return { id, vector: randomVector(rng, 2), ...(payload ? { payload } : {}) };
    },
  );
  await engineCall('PUT', '/points?wait=true', { points });
  await driver.ok({ cmd: 'upsert', name, points });
  for (const [field, schemas] of INDEXABLE) {
    if (!rng.chance(0.5)) continue;
    const schema = rng.pick(schemas);
    await engineCall('PUT', '/index?wait=true', { field_name: field, field_schema: schema });
    await driver.ok({ cmd: 'create_index', name, field, schema });
  }

  const both = async (what: string, method: string, path: string, body: Json, cmd: Json) => {
    const e = await engineCall(method, path, body);
    const q = await driver.send({ ...cmd, ...body, name });
    if ((e.status === 200) !== 'ok' in q) {
      throw new Error(
        `${what}: engine ${e.status} ${JSON.stringify(e.body.status ?? '')}, qdrant-edge ${JSON.stringify(q)}\n  request: ${JSON.stringify(body)}`,
      );
    }
    checks++;
    // Both refused it: the same answer; nothing more to compare.
    return e.status === 200
      ? { engine: e.body.result, edge: (q as { ok?: unknown }).ok }
      : undefined;
  };
  const compareState = async (after: string) => {
    const body = { limit: 10_000, with_payload: true };
    const r = (await both('state', 'POST', '/points/scroll', body, { cmd: 'scroll' }))!;
    const e = (r.engine as { points: PointOut[] }).points;
    const q = (r.edge as { points: PointOut[] }).points;
    compareExact(
      e.map(({ id, payload }) => ({ id, payload })),
      q,
      `state after ${after}`,
    );
  };

  /** The points only one side selects, with their payloads, to show in a failure. */
  const differingPoints = async (filter: Json): Promise<string> => {
    const body = { filter, limit: 10_000, with_payload: true };
    const e = await engineCall('POST', '/points/scroll', body);
    const q = await driver.ok({ cmd: 'scroll', name, ...body });
    const list = (r: unknown) => (r as { points: PointOut[] }).points;
    const key = (p: PointOut) => JSON.stringify(p.id);
    const inEdge = new Set(list(q).map(key));
    const inEngine = new Set(list(e.body.result).map(key));
    const only = (points: PointOut[], other: Set<string>) =>
      points
        .filter((p) => !other.has(key(p)))
        .map((p) => JSON.stringify({ id: p.id, payload: p.payload }));
    const schema = (await engineCall('GET', '')).body.result as { payload_schema?: unknown };
    return (
      `\n  only the engine: ${only(list(e.body.result), inEdge).join('\n    ')}` +
      `\n  only qdrant-edge: ${only(list(q), inEngine).join('\n    ')}` +
      `\n  indexes: ${JSON.stringify(schema.payload_schema)}`
    );
  };

  for (let i = 0; i < FILTERS_PER_COLLECTION; i++) {
    const filter = randomFilter(rng, 2, idPool, uuids);
    const where = `seed ${seed} filter ${i} ${JSON.stringify(filter)}`;
    try {
      const counted = await both(
        'count',
        'POST',
        '/points/count',
        { filter, exact: true },
        {
          cmd: 'count',
        },
      );
      if (!counted) continue;
      compareValue(counted.engine, counted.edge, 'count');
      const body = { filter, limit: 10_000, with_payload: false };
      const scrolled = await both('scroll', 'POST', '/points/scroll', body, { cmd: 'scroll' });
      const ids = (r: unknown) => (r as { points: PointOut[] }).points.map((p) => ({ id: p.id }));
      compareExact(ids(scrolled!.engine), ids(scrolled!.edge), 'scroll');
      // A search returns every match too (limit above the count), through the payload
      // index's candidates: the same points, whatever their order.
      const search = {
        vector: randomVector(rng, 2),
        filter,
        limit: 10_000,
        params: { exact: true },
      };
      const found = await both('search', 'POST', '/points/search', search, {
        cmd: 'search',
        exact: true,
      });
      const sortedIds = (r: unknown) =>
        (r as PointOut[])
          .map((p) => ({ id: p.id }))
          .sort((a, b) => (JSON.stringify(a.id) < JSON.stringify(b.id) ? -1 : 1));
      compareExact(sortedIds(found!.engine), sortedIds(found!.edge), 'search');
      if (rng.chance(0.08)) {
        await both('delete', 'POST', '/points/delete?wait=true', { filter }, { cmd: 'delete' });
        await compareState('delete by filter');
      }
    } catch (error) {
      const shown = await differingPoints(filter).catch(() => '');
      throw new Error(`${where}\n${(error as Error).message}${shown}`, { cause: error });
    }
  }
  await engineCall('DELETE', '');
  await driver.ok({ cmd: 'drop', name });
  return checks;
}

test(`filters select what qdrant-edge selects in ${CASES} random cases`, async () => {
  let checks = 0;
  let collections = 0;
  for (let seed = FIRST_SEED; checks < CASES; seed++) {
    try {
      checks += await runCollection(seed);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nreplay: SVC_FILTER_DIFF_SEED=${seed}`, {
        cause: error,
      });
    }
    collections++;
  }
  console.log(`filter differential: ${checks} cases in ${collections} collections matched`);
  expect(checks).toBeGreaterThanOrEqual(CASES);
}, 600_000);
