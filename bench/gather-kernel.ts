/**
 * What one vector costs the gather kernel (engine/src/simd/kernels.ts), the call a graph
 * walk scores a node's neighbours with: 32 slots a call, drawn at random from the first
 * 1000 slots (in cache), the first 8000, or all of them (a graph walk's case: anywhere in
 * memory). Nanoseconds per vector, the best of three passes of 20000 calls.
 *
 *   GATHER_DIM=128 GATHER_POINTS=100000 node --import tsx bench/gather-kernel.ts
 */
import { VectorArena } from '../engine/src/store/vector-arena.js';
import { seededRandom } from '../common/seeded-random.js';

const DIM = Number(process.env.GATHER_DIM ?? 128);
const POINTS = Number(process.env.GATHER_POINTS ?? 100_000);
const PER_CALL = 32;
const CALLS = 20_000;

const random = seededRandom(1);
const arena = new VectorArena(DIM, 'Dot', { initialCapacity: POINTS });
const vector = new Float32Array(DIM);
for (let i = 0; i < POINTS; i++) {
  for (let d = 0; d < DIM; d++) vector[d] = random() * 2 - 1;
  arena.push(vector);
}
const q = arena.placeQuery(vector);
const { gather, gatherIds } = arena.space;

console.log(`${POINTS} vectors of ${DIM} floats, ${PER_CALL} slots a gather`);
for (const range of [1000, 8000, POINTS]) {
  const ids = Int32Array.from({ length: PER_CALL * CALLS }, () => Math.floor(random() * range));
  let best = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    const started = performance.now();
    for (let c = 0; c < CALLS; c++) {
      gatherIds.set(ids.subarray(c * PER_CALL, (c + 1) * PER_CALL));
      gather(q, PER_CALL);
    }
    best = Math.min(best, performance.now() - started);
  }
  const ns = (best * 1e6) / (CALLS * PER_CALL);
  console.log(
    `slots drawn from the first ${String(range).padStart(6)}: ${ns.toFixed(1)} ns a vector`,
  );
}
