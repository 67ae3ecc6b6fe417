import { afterEach, expect, test } from '@jest/globals';
import { seededRandom } from '../../../common/seeded-random.js';
import { parseFilter } from '../filter/parse.js';
import { Collection } from '../store/collection.js';
import { newCollectionConfig } from '../store/collection-config.js';
import { indexedAnswers } from './filter-answers.js';
import { FAILS, PASSES, UNKNOWN } from './verdicts.js';
import { planFilter } from './filter-plan.js';

const random = seededRandom(18);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const open: Collection[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));
let seq = 0;

/** Values of every type the indexes hold or leave out: fractions, strings, arrays, null. */
const integer = () => Math.floor(random() * 10) - 2;
const word = () => pick(['red', 'reddish', 'blue', 'bl', 'green', 'Red', '']);
const someValue = () =>
  pick([
    integer,
    integer,
    () => integer() + 0.5,
    word,
    () => random() < 0.5,
    () => null,
    () => [],
    () => [integer(), integer()],
    () => [integer(), integer() + 0.25],
    () => [word(), word()],
    () => [word(), integer()],
  ])();

/** A payload with some of the indexed fields `n`, `k`, `f`, `b` and the unindexed `u`. */
function randomPayload(): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const key of ['n', 'k', 'f', 'b', 'u']) if (random() < 0.8) payload[key] = someValue();
  return payload;
}

function randomCondition(depth: number): unknown {
  const key = pick(['n', 'k', 'f', 'b', 'u']);
  const bound = () => integer() + pick([0, 0, 0.5]);
  const range = () => {
    const r: Record<string, number> = {};
    for (const b of ['gt', 'gte', 'lt', 'lte']) if (random() < 0.4) r[b] = bound();
    return r;
  };
  const kinds: (() => unknown)[] = [
    () => ({ key, match: { value: integer() } }),
    () => ({ key, match: { value: word() } }),
    () => ({ key, match: { value: random() < 0.5 } }),
    () => ({ key, match: { any: [integer(), integer()] } }),
    () => ({ key, match: { any: [word(), word()] } }),
    () => ({ key, match: { prefix: word().slice(0, 2) } }),
    () => ({ key, match: { substring: word().slice(1, 3) } }),
    () => ({ key, match: { except: [integer()] } }),
    () => ({ key, range: range() }),
    () => ({ key, range: range() }),
    () => ({ key, match: { value: integer() }, range: range() }),
    () => ({ key, values_count: { gte: 1 } }),
    () => ({ is_empty: { key } }),
    () => ({ has_id: [integer() + 5, integer() + 50] }),
    () => ({ has_vector: pick(['', 'other']) }),
  ];
  if (depth < 2)
    kinds.push(
      () => randomFilter(depth + 1),
      () => randomFilter(depth + 1),
    );
  return pick(kinds)();
}

/** A filter of `must`, `should`, `must_not` and `min_should` parts, some empty or absent. */
function randomFilter(depth = 0): Record<string, unknown> {
  const conditions = () =>
    Array.from({ length: Math.floor(random() * 3) }, () => randomCondition(depth));
  const filter: Record<string, unknown> = {};
  for (const part of ['must', 'should', 'must_not'])
    if (random() < 0.6) filter[part] = conditions();
  if (random() < 0.2) {
    filter.min_should = { conditions: conditions(), min_count: Math.floor(random() * 3) };
  }
  // A filter inside a condition may not be empty.
  if (depth > 0 && Object.keys(filter).length === 0) filter.must = [randomCondition(depth)];
  return filter;
}

/** 300 points with random payloads and indexes on `n`, `k`, `f`, `b`; some deleted or moved. */
function collection(): Collection {
  const c = new Collection(newCollectionConfig('c', 2, 'Euclid'), {
    threshold: Infinity,
    idleMs: 600_000,
    onError: (error) => {
      throw error;
    },
  });
  open.push(c);
  const schemas = { n: 'integer', k: 'keyword', f: 'float', b: 'bool' } as const;
  for (const [field, type] of Object.entries(schemas)) {
    c.apply({ type: 'create_index', field, schema: { type } }, ++seq);
  }
  const point = (id: number) => ({
    id,
    vector: Float32Array.from([random(), random()]),
    payload: randomPayload(),
  });
  c.apply({ type: 'upsert', points: Array.from({ length: 300 }, (_, id) => point(id)) }, ++seq);
  c.apply({ type: 'delete_points', selector: { ids: [3, 4, 60, 61, 62] } }, ++seq);
  c.apply({ type: 'upsert', points: [point(7), point(8), point(300)] }, ++seq);
  return c;
}

test('the answers the indexes give are the filter evaluated on each live point', () => {
  const c = collection();
  let known = 0;
  let asked = 0;
  for (let i = 0; i < 400; i++) {
    // Ranges read the sorted copy when it is current, the values by slot when not.
    if (i % 2 === 0)
      for (const field of ['n', 'f']) c.fieldIndexes.get(field)!.ordered('asc').next();
    else c.apply({ type: 'set_payload', selector: { ids: [i] }, payload: { z: i } }, ++seq);
    const raw = randomFilter();
    const filter = parseFilter(raw)!;
    const answers = indexedAnswers(c, filter);
    for (const slot of c.points.liveSlots()) {
      asked++;
      const answer = answers ? answers[slot]! : UNKNOWN;
      if (answer === UNKNOWN) continue;
      known++;
      const evaluated = c.slotMatches(slot, filter) ? PASSES : FAILS;
      if (answer !== evaluated) {
        throw new Error(`slot ${slot} ${JSON.stringify(c.points.payloads[slot])}
          filter ${JSON.stringify(raw)}: index says ${answer}, evaluation ${evaluated}`);
      }
    }
  }
  // The indexes answered much of it: a test where they never do would prove nothing.
  expect(known / asked).toBeGreaterThan(0.3);
});

test("a broad filter's plan answers as evaluation does before and after it asks the indexes", () => {
  const c = collection();
  for (let i = 0; i < 100; i++) {
    // A write first: plans remember answers for a few filters at a time until the next one.
    c.apply({ type: 'set_payload', selector: { ids: [i] }, payload: { z: i } }, ++seq);
    const raw = randomFilter();
    const filter = parseFilter(raw)!;
    // A threshold of 0 makes every filter broad, so its plan remembers answers per slot.
    const plan = planFilter(c, filter, 0);
    // Twice over: the first pass asks the indexes once it has evaluated a 128th of the slots.
    const wrong: unknown[] = [];
    for (let pass = 0; pass < 2; pass++) {
      for (const slot of c.points.liveSlots()) {
        if (plan.passes(slot) !== c.slotMatches(slot, filter)) wrong.push({ slot, raw });
      }
    }
    expect(wrong).toEqual([]);
  }
});

test('an integer index leaves a fraction its range would pass to evaluation', () => {
  const c = collection();
  const vector = Float32Array.from([0, 0]);
  c.apply({ type: 'upsert', points: [{ id: 500, vector, payload: { n: 2.5 } }] }, ++seq);
  const slot = c.points.slotOf(500)!;
  const between = parseFilter({ must: [{ key: 'n', range: { gt: 2, lt: 3 } }] })!;
  expect(indexedAnswers(c, between)![slot]).toBe(UNKNOWN);
  expect(c.slotMatches(slot, between)).toBe(true);
  const outside = parseFilter({ must: [{ key: 'n', range: { gt: 3 } }] })!;
  expect(c.slotMatches(slot, outside)).toBe(false);
  expect(indexedAnswers(c, outside)![slot]).toBe(UNKNOWN);
  c.apply({ type: 'set_payload', selector: { ids: [500] }, payload: { n: 2 } }, ++seq);
  expect(indexedAnswers(c, between)![slot]).toBe(FAILS);
});
