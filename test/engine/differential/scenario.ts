/**
 * One differential scenario: a random collection built the same way in the engine (over
 * HTTP) and in qdrant-edge, then a seeded sequence of reads and writes run against both,
 * each answer compared. Every comparison counts as one case. A failure names the
 * scenario seed and step, which replay it exactly.
 */
import { call } from '../support/engine-process.js';
import { compareExact, compareGroups, compareRanked, compareValue } from './compare.js';
import type { GroupOut, PointOut } from './compare.js';
import type { EdgeDriver } from './edge-driver.js';
import { KEYWORDS, randomPayload, randomUuid, randomVector } from './generate-data.js';
import { randomFilter } from './generate-filter.js';
import { Prng } from './prng.js';
import {
  describeQuery,
  randomFacet,
  randomGroups,
  randomQuery,
  randomRefusal,
} from './query-steps.js';
import type { QueryContext } from './query-steps.js';

type Json = Record<string, unknown>;
type Id = number | string;

const DISTANCES = ['Cosine', 'Euclid', 'Dot', 'Manhattan'] as const;

const INDEXABLE: [string, () => unknown][] = [
  ['kw', () => 'keyword'],
  ['int', () => 'integer'],
  ['flt', () => 'float'],
  ['dt', () => 'datetime'],
  ['geo', () => 'geo'],
  ['u', () => 'uuid'],
  ['obj.a.b', () => 'integer'],
  ['nested[].k', () => 'keyword'],
  ['txt', () => 'text'],
  ['rank', () => 'integer'],
  ['price', () => 'float'],
];

const TEXT_SCHEMAS = [
  'text',
  { type: 'text', tokenizer: 'whitespace' },
  { type: 'text', tokenizer: 'prefix', min_token_len: 2, max_token_len: 6 },
  { type: 'text', lowercase: false },
  { type: 'text', tokenizer: 'word', min_token_len: 3 },
  { type: 'text', phrase_matching: true },
  { type: 'text', tokenizer: 'prefix', max_token_len: 4, phrase_matching: true },
];

/**
 * Keys `order_by` uses: single-valued ones. For a point with several values Qdrant lists
 * it once per value or once in all, depending on how its planner reads the index.
 */
const ORDER_KEYS = new Set(['rank', 'price']);

/** Comparisons made so far in this process, by kind of request (for the suite's report). */
export const CASES_BY_KIND = new Map<string, number>();

const tally = (kind: string) => CASES_BY_KIND.set(kind, (CASES_BY_KIND.get(kind) ?? 0) + 1);

/**
 * Runs one scenario of `steps` steps; resolves with the number of comparisons made.
 * `keep` leaves the collection in place on both sides, to inspect after a replay.
 */
export async function runScenario(
  seed: number,
  steps: number,
  url: string,
  driver: EdgeDriver,
  keep = false,
): Promise<number> {
  const rng = new Prng(seed);
  const name = `diff_${seed}`;
  const dim = rng.int(2, 8);
  const distance = rng.pick(DISTANCES);
  const uuids = Array.from({ length: 12 }, () => randomUuid(rng));
  const idPool: Id[] = [...Array.from({ length: 60 }, (_, i) => i * 3), ...uuids];
  const indexes = new Map<string, unknown>();
  let checks = 0;
  let step = 0;
  // The last requests, so a failed state check shows the write that caused it.
  const history: string[] = [];

  const where = (what: string) => `scenario ${seed} step ${step} (${what})`;
  const engine = async (method: string, path: string, body?: unknown) =>
    call(url, method, `/collections/${name}${path}`, body);

  const both = async (
    what: string,
    method: string,
    path: string,
    body: Json,
    edgeRequest: Json,
  ): Promise<{ engine: unknown; edge: unknown } | undefined> => {
    history.push(`${what} ${JSON.stringify(body)}`);
    if (history.length > 3) history.shift();
    const e = await engine(method, path, body);
    const q = await driver.send({ ...edgeRequest, name });
    const engineOk = e.status === 200;
    const edgeOk = 'ok' in q;
    // The engine may refuse what it does not implement, with a 400 saying so.
    const notSupported = e.status === 400 && /not supported/.test(JSON.stringify(e.body.status));
    if (!engineOk && edgeOk && notSupported) {
      checks++;
      tally(`${what} (400 not supported)`);
      return undefined;
    }
    if (engineOk !== edgeOk) {
      throw new Error(
        `${where(what)}: engine ${engineOk ? 'succeeded' : `failed (${e.status} ${JSON.stringify(e.body.status)})`}, ` +
          `qdrant-edge ${edgeOk ? 'succeeded' : `failed (${(q as { error: string }).error})`}\n  request: ${JSON.stringify(body)}`,
      );
    }
    checks++;
    tally(engineOk ? what : `${what} (both refused)`);
    return engineOk ? { engine: e.body.result, edge: (q as { ok: unknown }).ok } : undefined;
  };

  const guarded = async (what: string, request: Json, check: () => Promise<void>) => {
    try {
      await check();
    } catch (error) {
      const message = (error as Error).message;
      throw new Error(
        message.startsWith('scenario')
          ? message
          : `${where(what)}: ${message}\n  request: ${JSON.stringify(request)}\n  recent: ${history.join('\n          ')}`,
        { cause: error },
      );
    }
  };

  const created = await call(url, 'PUT', `/collections/${name}`, {
    vectors: { size: dim, distance },
  });
  if (created.status !== 200) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
  await driver.ok({ cmd: 'create', name, size: dim, distance });
  // The collection `lookup_from` names, on both sides: the same points (ids of the pool).
  const lookupName = `${name}_lookup`;
  const lookupPoints = idPool
    .filter(() => rng.chance(0.5))
    .map((id) => ({ id, vector: randomVector(rng, dim) }));
  await call(url, 'PUT', `/collections/${lookupName}`, { vectors: { size: dim, distance } });
  await call(url, 'PUT', `/collections/${lookupName}/points?wait=true`, { points: lookupPoints });
  await driver.ok({ cmd: 'create', name: lookupName, size: dim, distance });
  await driver.ok({ cmd: 'upsert', name: lookupName, points: lookupPoints });

  const randomPoint = (id: Id) => {
    const payload = randomPayload(rng, uuids);
    return { id, vector: randomVector(rng, dim), ...(payload ? { payload } : {}) };
  };
  const upsert = async (points: Json[]) => {
    noteVectors(points);
    await both('upsert', 'PUT', '/points?wait=true', { points }, { cmd: 'upsert', points });
  };
  const ids = (n: number) => {
    const chosen = new Set<Id>();
    while (chosen.size < n) chosen.add(rng.pick(idPool));
    return [...chosen];
  };
  const filter = () => randomFilter(rng, 1, idPool, uuids);
  const withPayload = (): unknown =>
    rng.pick<unknown>([
      true,
      false,
      ['kw', 'obj.a'],
      { exclude: ['nested', 'txt'] },
      ['nested[].k'],
    ]);
  const rangeKeys = () => [...indexes.keys()].filter((k) => ORDER_KEYS.has(k));
  // Qdrant reads `with_vectors` as `with_vector`'s alias.
  const vectorFlag = () => (rng.chance(0.3) ? 'with_vectors' : 'with_vector');
  // The ids the last state check found.
  let liveIds: Id[] = [];
  // Ids ever given an all-zero vector (see QueryContext.zeroVectorIds).
  const zeroIds = new Set<Id>();
  const noteVectors = (points: Json[]) => {
    for (const p of points) {
      if ((p.vector as number[]).every((x) => x === 0)) zeroIds.add(p.id as Id);
    }
  };
  const queryContext: QueryContext = {
    rng,
    dim,
    idPool,
    filter,
    withPayload,
    rangeKeys,
    zeroVectorIds: () => [...zeroIds],
    lookupCollection: `${name}_lookup`,
    liveIds: () => liveIds,
    indexedKeys: () => [...indexes.keys()],
  };

  const fullState = async () => {
    const body = { limit: 10_000, with_payload: true, with_vector: true };
    const r = await both('state', 'POST', '/points/scroll', body, { cmd: 'scroll', ...body });
    await guarded('state', body, async () => {
      const e = r!.engine as { points: PointOut[] };
      const q = r!.edge as { points: PointOut[] };
      compareExact(e.points, q.points, 'full state');
      liveIds = e.points.map((p) => p.id);
    });
  };

  await upsert(
    Array.from({ length: rng.int(20, 120) }, () => randomPoint(rng.pick(idPool))).filter(
      (p, i, all) => all.findIndex((o) => o.id === p.id) === i,
    ),
  );
  if (rng.chance(0.6)) {
    for (const [field, schema] of INDEXABLE) {
      if (!rng.chance(0.5)) continue;
      const s = field === 'txt' ? rng.pick(TEXT_SCHEMAS) : schema();
      await createIndex(field, s);
    }
  }
  await fullState();

  async function createIndex(field: string, schema: unknown) {
    const body = { field_name: field, field_schema: schema };
    await both('index', 'PUT', '/index?wait=true', body, { cmd: 'create_index', field, schema });
    indexes.set(field, typeof schema === 'string' ? schema : (schema as Json).type);
  }

  for (step = 0; step < steps; step++) {
    const r = rng.next();
    if (r < 0.25) {
      const body: Json = { vector: randomVector(rng, dim), limit: rng.int(1, 15) };
      if (rng.chance(0.2)) body.offset = rng.int(1, 3);
      if (rng.chance(0.6)) body.filter = filter();
      if (rng.chance(0.15)) {
        const scale = distance === 'Cosine' ? 1 : distance === 'Dot' ? dim / 3 : dim / 2;
        body.score_threshold = rng.fraction(-scale, scale);
      }
      body.with_payload = withPayload();
      body[vectorFlag()] = rng.chance(0.2);
      const res = await both('search', 'POST', '/points/search', body, { cmd: 'search', ...body });
      if (res) {
        await guarded('search', body, async () =>
          compareRanked(
            res.engine as PointOut[],
            res.edge as PointOut[],
            'search',
            'score',
            Number(body.offset ?? 0),
          ),
        );
      }
    } else if (r < 0.4 && rng.chance(0.15)) {
      // The batch routes: each answer compared as the single route's would be.
      const isQuery = rng.chance(0.5);
      const searches = [randomQuery(queryContext), randomQuery(queryContext)]
        .filter((q) => q.ranking !== 'count')
        .map((q) =>
          isQuery
            ? q.body
            : { vector: randomVector(rng, dim), limit: rng.int(1, 8), filter: filter() },
        );
      const path = isQuery ? '/points/query/batch' : '/points/search/batch';
      const body = { searches };
      const cmd = isQuery ? 'query_batch' : 'search_batch';
      const res = await both(path.slice(8), 'POST', path, body, { cmd, ...body });
      if (res) {
        await guarded('batch', body, async () => {
          const e = res.engine as unknown[];
          const q = res.edge as unknown[];
          compareValue(e.length, q.length, 'batch size');
          e.forEach((answer, i) => {
            const offset = Number((searches[i] as Json).offset ?? 0);
            const points = (a: unknown) =>
              (isQuery ? (a as { points: PointOut[] }).points : a) as PointOut[];
            const query = (searches[i] as Json).query as Json | undefined;
            const ordered = typeof query === 'object' && query !== null && 'order_by' in query;
            compareRanked(
              points(answer),
              points(q[i]),
              `${path}[${i}]`,
              ordered ? 'order_value' : 'score',
              offset,
            );
          });
        });
      }
    } else if (r < 0.4) {
      const { body, ranking } = randomQuery(queryContext);
      const res = await both(`query: ${describeQuery(body)}`, 'POST', '/points/query', body, {
        cmd: 'query',
        ...body,
      });
      if (res) {
        await guarded('query', body, async () => {
          const e = (res.engine as { points: PointOut[] }).points;
          const q = (res.edge as { points: PointOut[] }).points;
          const offset = Number(body.offset ?? 0);
          if (ranking === 'count' && body.query === undefined) {
            compareExact(e, q, 'query without a query');
          } else if (ranking === 'count') {
            compareValue(e.length, q.length, 'sample size');
            compareValue(new Set(e.map((p) => p.id)).size, e.length, 'sample without repeats');
          } else compareRanked(e, q, 'query', ranking, offset);
        });
      }
    } else if (r < 0.45) {
      const { body, search } = randomGroups(queryContext);
      const path = search ? '/points/search/groups' : '/points/query/groups';
      const res = await both(path.slice(8), 'POST', path, body, { cmd: 'query_groups', ...body });
      if (res) {
        await guarded('groups', body, async () =>
          compareGroups(
            (res.engine as { groups: GroupOut[] }).groups,
            (res.edge as { groups: GroupOut[] }).groups,
            path,
          ),
        );
      }
    } else if (r < 0.48) {
      const body = randomFacet(queryContext);
      const res = await both('facet', 'POST', '/facet', body, { cmd: 'facet', ...body });
      if (res) {
        // qdrant-edge also lists values its index still holds for points since deleted or
        // overwritten, with count 0, until its optimizer drops them; the engine lists only
        // values some point holds.
        const held = (res.edge as { hits: { count: number }[] }).hits.filter((h) => h.count > 0);
        await guarded('facet', body, async () => compareValue(res.engine, { hits: held }, 'facet'));
      }
    } else if (r < 0.51) {
      const refusal = randomRefusal(queryContext);
      history.push(`refusal ${refusal.method} ${refusal.path} ${JSON.stringify(refusal.body)}`);
      const answer = await engine(refusal.method, refusal.path, refusal.body);
      const message = JSON.stringify(answer.body.status);
      if (answer.status !== 400 || !refusal.says.test(message)) {
        throw new Error(
          `${where('refusal')}: ${refusal.method} ${refusal.path} ${JSON.stringify(refusal.body)} answered ${answer.status} ${message}, expected a 400 matching ${refusal.says}`,
        );
      }
      checks++;
      tally('refusal (400 checked)');
    } else if (r < 0.6) {
      const body: Json = {
        limit: rng.int(1, 20),
        with_payload: withPayload(),
        [vectorFlag()]: rng.chance(0.2),
      };
      if (rng.chance(0.5)) body.filter = filter();
      const keys = rangeKeys();
      const ordered = keys.length > 0 && rng.chance(0.25);
      if (ordered) {
        const order: Json = { key: rng.pick(keys), direction: rng.pick(['asc', 'desc']) };
        if (rng.chance(0.3))
          order.start_from = order.key === 'rank' ? rng.int(-3, 6) : rng.int(10, 90);
        body.order_by = order;
      } else if (rng.chance(0.4)) body.offset = rng.pick(idPool);
      const res = await both('scroll', 'POST', '/points/scroll', body, { cmd: 'scroll', ...body });
      if (res) {
        await guarded('scroll', body, async () => {
          const e = res.engine as { points: PointOut[]; next_page_offset: unknown };
          const q = res.edge as { points: PointOut[]; next_page_offset: unknown };
          if (ordered) compareRanked(e.points, q.points, 'scroll order_by', 'order_value');
          else compareExact(e.points, q.points, 'scroll');
          compareValue(e.next_page_offset, q.next_page_offset, 'next_page_offset');
        });
      }
    } else if (r < 0.7) {
      const body: Json = rng.chance(0.85) ? { filter: filter(), exact: true } : { exact: true };
      const res = await both('count', 'POST', '/points/count', body, { cmd: 'count', ...body });
      if (res)
        await guarded('count', body, async () => compareValue(res.engine, res.edge, 'count'));
    } else if (r < 0.72) {
      const body = {
        ids: ids(rng.int(1, 5)),
        with_payload: withPayload(),
        [vectorFlag()]: rng.chance(0.3),
      };
      const res = await both('retrieve', 'POST', '/points', body, { cmd: 'retrieve', ...body });
      if (res) {
        await guarded('retrieve', body, async () =>
          compareExact(res.engine as PointOut[], res.edge as PointOut[], 'retrieve'),
        );
      }
    } else {
      await randomWrite();
      await fullState();
    }
  }

  async function randomWrite() {
    const selector = (): Json =>
      rng.chance(0.75) ? { points: ids(rng.int(1, 4)) } : { filter: filter() };
    // Values keep each indexed field's type (see generate-data.ts); `extra` is never indexed.
    const smallPayload = (): Json => {
      const values: Record<string, () => unknown> = {
        kw: () => rng.pick<unknown>([rng.pick(KEYWORDS), [rng.pick(KEYWORDS)], null]),
        int: () => rng.pick<unknown>([rng.int(-5, 10), null, [rng.int(-5, 10)]]),
        extra: () =>
          rng.pick<unknown>([rng.pick(KEYWORDS), rng.int(-5, 10), rng.fraction(-2, 2), null]),
        obj: () => rng.pick<unknown>([{ b: rng.int(0, 3) }, { a: { b: rng.int(-5, 10) } }, null]),
        nested: () => [{ k: rng.pick(KEYWORDS) }],
      };
      const payload: Json = {};
      for (const [key, value] of Object.entries(values))
        if (rng.chance(0.35)) payload[key] = value();
      return payload;
    };
    switch (rng.int(0, 8)) {
      case 0:
        return upsert(ids(rng.int(1, 5)).map(randomPoint));
      case 1: {
        // A conditional upsert: existing points are overwritten only when they pass the
        // filter; the mode may allow only inserts or only updates.
        const body: Json = { points: ids(rng.int(1, 5)).map(randomPoint) };
        noteVectors(body.points as Json[]);
        if (rng.chance(0.8)) body.update_filter = filter();
        if (rng.chance(0.4)) body.update_mode = rng.pick(['upsert', 'insert_only', 'update_only']);
        return void (await both('conditional upsert', 'PUT', '/points?wait=true', body, {
          cmd: 'upsert',
          ...body,
        }));
      }
      case 2: {
        const body = selector();
        return void (await both('delete', 'POST', '/points/delete?wait=true', body, {
          cmd: 'delete',
          ...body,
        }));
      }
      case 3: {
        const body: Json = { ...selector(), payload: smallPayload() };
        if (rng.chance(0.35))
          // Never an indexed key: setting at it would put an object where its type belongs.
          body.key = rng.pick(['obj', 'obj.a', 'nested[]', 'nested[0]', 'extra.deep', 'extra']);
        return void (await both('set_payload', 'POST', '/points/payload?wait=true', body, {
          cmd: 'set_payload',
          ...body,
        }));
      }
      case 4: {
        const body = { ...selector(), payload: smallPayload() };
        return void (await both('overwrite', 'PUT', '/points/payload?wait=true', body, {
          cmd: 'overwrite_payload',
          ...body,
        }));
      }
      case 5: {
        const keys = Array.from({ length: rng.int(1, 3) }, () =>
          rng.pick([
            'kw',
            'obj.a.b',
            'obj.a',
            'nested[].k',
            'nested[0]',
            'nested[]',
            'missing',
            'int',
            'txt',
          ]),
        );
        const body = { ...selector(), keys };
        return void (await both(
          'delete_payload',
          'POST',
          '/points/payload/delete?wait=true',
          body,
          { cmd: 'delete_payload', ...body },
        ));
      }
      case 6: {
        const body = selector();
        return void (await both('clear', 'POST', '/points/payload/clear?wait=true', body, {
          cmd: 'clear_payload',
          ...body,
        }));
      }
      case 7: {
        const points = ids(rng.int(1, 3)).map((id) => ({ id, vector: randomVector(rng, dim) }));
        const body: Json = { points };
        noteVectors(points);
        if (rng.chance(0.4)) body.update_filter = filter();
        return void (await both('update_vectors', 'PUT', '/points/vectors?wait=true', body, {
          cmd: 'update_vectors',
          ...body,
        }));
      }
      default: {
        const [field, schema] = rng.pick(INDEXABLE);
        if (indexes.has(field)) return;
        return createIndex(field, field === 'txt' ? rng.pick(TEXT_SCHEMAS) : schema());
      }
    }
  }

  if (!keep) {
    for (const collection of [name, lookupName]) {
      await call(url, 'DELETE', `/collections/${collection}`);
      await driver.ok({ cmd: 'drop', name: collection });
    }
  }
  return checks;
}
