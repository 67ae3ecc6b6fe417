import { afterEach, expect, test } from '@jest/globals';
import { seededRandom } from '../../../common/seeded-random.js';
import { parseFilter } from '../filter/parse.js';
import { search } from '../search/search.js';
import { Collection } from '../store/collection.js';
import { newCollectionConfig } from '../store/collection-config.js';
import { FAILS, PASSES, UNKNOWN } from './verdicts.js';
import { planFilter } from './filter-plan.js';

const DIM = 8;
const N = 2000;
const random = seededRandom(7);
const randomVector = () => Float32Array.from({ length: DIM }, () => random() * 2 - 1);
const open: Collection[] = [];
afterEach(() => open.splice(0).forEach((c) => c.close()));
let seq = 0;

/** A collection of N points with payload `{bucket: id % 100}` and an index on it. */
function collection(): Collection {
  const c = new Collection(newCollectionConfig('c', DIM, 'Euclid'), {
    threshold: Infinity,
    idleMs: 600_000,
    onError: (error) => {
      throw error;
    },
  });
  open.push(c);
  c.apply({ type: 'create_index', field: 'bucket', schema: { type: 'integer' } }, ++seq);
  const points = Array.from({ length: N }, (_, id) => ({
    id,
    vector: randomVector(),
    payload: { bucket: id % 100 },
  }));
  c.apply({ type: 'upsert', points }, ++seq);
  return c;
}

const below = (n: number) => parseFilter({ must: [{ key: 'bucket', range: { lt: n } }] })!;

test('a selective filter lists its candidates from the payload index, a broad one does not', () => {
  const c = collection();
  const selective = planFilter(c, below(5), 200);
  expect(selective.matches).toBe(100);
  expect(
    [...selective.candidates!].every((slot) => (c.points.payloads[slot]!.bucket as number) < 5),
  ).toBe(true);
  const broad = planFilter(c, below(50), 200);
  expect(broad.candidates).toBeUndefined();
  expect(broad.matches).toBeGreaterThan(400);
});

test('a plan is forgotten after a write, so new matches are found', () => {
  const c = collection();
  const filter = below(1);
  expect(planFilter(c, filter, 200).matches).toBe(20);
  const vector = randomVector();
  c.apply({ type: 'upsert', points: [{ id: N, vector, payload: { bucket: 0 } }] }, ++seq);
  expect(planFilter(c, filter, 200).matches).toBe(21);
  const [hit] = search(c, { vector, limit: 1, offset: 0, exact: false, filter });
  expect(c.points.ids[hit!.slot]).toBe(N);
});

test('a broad filter remembers its answers only until the next write', () => {
  const c = collection();
  const filter = below(50);
  const plan = planFilter(c, filter, 200);
  expect(plan.passes(7)).toBe(true);
  expect(plan.passes(7)).toBe(true);
  expect(plan.passes(60)).toBe(false);
  c.apply({ type: 'set_payload', selector: { ids: [7] }, payload: { bucket: 99 } }, ++seq);
  expect(planFilter(c, filter, 200).passes(c.points.slotOf(7)!)).toBe(false);
});

test.each([
  ['a range', { must: [{ key: 'bucket', range: { lt: 50 } }] }],
  // The index answers dead slots FAILS for the range; negated, they would pass.
  ['a negated range', { must_not: [{ key: 'bucket', range: { gte: 50 } }] }],
])(
  "a broad filter's verdicts, once taken from the index, pass exactly the live slots that pass (%s)",
  (_name, json) => {
    const c = collection();
    c.apply({ type: 'delete_points', selector: { ids: [3, 4] } }, ++seq);
    const plan = planFilter(c, parseFilter(json)!, 200);
    expect(plan.verdicts()!.bytes.every((v) => v === UNKNOWN)).toBe(true);
    expect(plan.verdicts()!.passing).toBeUndefined();
    // The plan evaluates a 128th of the slots itself, then takes every answer from the index.
    for (let slot = 0; slot < N / 64; slot++) if (c.points.alive[slot]) plan.passes(slot);
    const { bytes: verdicts, passing } = plan.verdicts()!;
    for (let slot = 0; slot < c.points.slotCount; slot++) {
      const passes = c.points.alive[slot] === 1 && (c.points.payloads[slot]!.bucket as number) < 50;
      expect(verdicts[slot]).toBe(passes ? PASSES : FAILS);
      // Every verdict is known, so the passing slots are also a bitset.
      expect((passing![slot >>> 5]! >>> (slot & 31)) & 1).toBe(passes ? 1 : 0);
    }
    // Points 3 and 4 were in slots 3 and 4, and pass the filter's range.
    expect([verdicts[3], verdicts[4]]).toEqual([FAILS, FAILS]);
  },
);

test('a selective plan remembers the answers of the candidates it checks', () => {
  const c = collection();
  const plan = planFilter(c, below(5), 200);
  const [passing, failing] = [c.points.slotOf(3)!, c.points.slotOf(7)!];
  expect([plan.passes(passing), plan.passes(failing)]).toEqual([true, false]);
  expect([plan.verdicts()!.bytes[passing], plan.verdicts()!.bytes[failing]]).toEqual([
    PASSES,
    FAILS,
  ]);
});
