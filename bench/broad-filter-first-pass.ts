/**
 * What the first queries with a new broad filter cost the engine's core, against the same
 * queries again once its plan knows every answer: the engine's side of the "first pass"
 * row of engine-vs-qdrant-edge.ts, without qdrant-edge beside it (so the two passes share
 * one process and the load of the machine) and without that bench's exact pass, which
 * warms the plan first. Each filter is new (`bucket` in a different half of its 100
 * values) after a write to one point's payload, so each one is planned and learnt from
 * nothing; both passes are the same queries at the same `ef`.
 *
 *   FIRST_PASS_POINTS=100000 FIRST_PASS_QUERIES=200 FIRST_PASS_FILTERS=8 FIRST_PASS_EF=16 \
 *   node --import tsx bench/broad-filter-first-pass.ts
 */
import { readFileSync } from 'node:fs';
import { preprocess } from '../engine/src/distance.js';
import { parseFilter } from '../engine/src/filter/parse.js';
import type { Filter } from '../engine/src/filter/types.js';
import { search } from '../engine/src/search/search.js';
import { Collection } from '../engine/src/store/collection.js';
import { newCollectionConfig } from '../engine/src/store/collection-config.js';
import { makeVectors } from './support/vectors.js';

const env = process.env;
const POINTS = Number(env.FIRST_PASS_POINTS ?? 100_000);
const QUERIES = Number(env.FIRST_PASS_QUERIES ?? 200);
const FILTERS = Number(env.FIRST_PASS_FILTERS ?? 8);
const EF = Number(env.FIRST_PASS_EF ?? 16);
const DIM = 128;
const BUCKETS = 100;

const data = makeVectors('clustered', DIM, POINTS, QUERIES);
const collection = new Collection(newCollectionConfig('bench', DIM, 'Cosine'), {
  threshold: Math.min(20_000, Math.floor(POINTS / 5)),
  idleMs: 200,
  onError: (error) => console.error(error),
});
let seq = 0;
collection.apply({ type: 'create_index', field: 'bucket', schema: { type: 'integer' } }, ++seq);
for (let i = 0; i < POINTS; i += 1000) {
  const points = data.base.slice(i, i + 1000).map((v, j) => ({
    id: i + j,
    vector: preprocess('Cosine', v),
    payload: { bucket: (i + j) % BUCKETS },
  }));
  collection.apply({ type: 'upsert', points }, ++seq);
}
const index = collection.vectorIndex;
while (index.isBuilding || index.indexedCount !== collection.points.liveCount) {
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const queries = data.queries.map((v) => preprocess('Cosine', v));

/** Microseconds a query over all the queries, with the filter when given. */
function pass(filter?: Filter): number {
  const started = performance.now();
  for (const vector of queries) {
    search(collection, {
      vector,
      limit: 10,
      offset: 0,
      exact: false,
      hnswEf: EF,
      ...(filter ? { filter } : {}),
    });
  }
  return ((performance.now() - started) * 1000) / queries.length;
}

const half = (from: number) =>
  parseFilter({ must: [{ key: 'bucket', range: { gte: from, lt: from + BUCKETS / 2 } }] })!;
// Warm-up: the JIT on the unfiltered walk and on a broad filter's first and later passes.
pass();
pass();
const warm = half(BUCKETS / 2);
pass(warm);
pass(warm);

console.log(`${POINTS} clustered ${DIM}-d points, ${QUERIES} queries, ef ${EF}, load ${loadavg()}`);
console.log('filter            first µs/query  second µs/query  first/second');
const ratios: number[] = [];
for (let i = 0; i < FILTERS; i++) {
  const from = 1 + ((i * 5) % (BUCKETS / 2 - 1));
  const filter = half(from);
  // A write first, as a workload's would be: the collection's plans start again from nothing.
  const touch = { ids: [i] };
  collection.apply({ type: 'set_payload', selector: touch, payload: { touched: i } }, ++seq);
  const first = pass(filter);
  const second = pass(filter);
  ratios.push(first / second);
  console.log(
    `bucket ${from}..${from + BUCKETS / 2 - 1}`.padEnd(18) +
      first.toFixed(1).padStart(15) +
      second.toFixed(1).padStart(17) +
      (first / second).toFixed(2).padStart(14),
  );
}
ratios.sort((a, b) => a - b);
console.log(`median first/second ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)}`);
console.log(`load ${loadavg()}`);
collection.close();

function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
