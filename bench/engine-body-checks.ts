/**
 * What the engine's checks on a request body cost next to parsing it: the nesting-depth
 * scan of the raw bytes (common/json-depth.ts) against JSON.parse, and reading the
 * points of an upsert (engine/src/request/selectors.ts, which refuses non-finite vector
 * components and payload numbers). The bodies are upserts of 500 points, as
 * bench/vector-gateway.ts sends, with its vectors and payloads. In-process, no servers.
 * Times are CPU time per body, the fastest of `rounds`, so other processes on a shared
 * machine inflate them less.
 *
 *   npx tsx bench/engine-body-checks.ts [rounds=15]
 *
 * Measured numbers: see bench/README.md.
 */
import { depthExceededAt } from '../common/json-depth.js';
import { readUpsertPoints } from '../engine/src/request/selectors.js';

const [rounds = 15] = process.argv.slice(2).map(Number);
const BATCH = 500;

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The fastest CPU time of one call to `run`, over `rounds` rounds of `reps` calls. */
function fastest(run: () => unknown, reps = 20): number {
  for (let i = 0; i < 3; i++) run();
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const started = cpuMs();
    for (let i = 0; i < reps; i++) run();
    best = Math.min(best, (cpuMs() - started) / reps);
  }
  return best;
}

console.log(`upserts of ${BATCH} points, CPU ms per body (fastest of ${rounds} rounds)`);
for (const dim of [128, 768]) {
  const vector = (i: number) => Array.from({ length: dim }, (_, d) => Math.sin(i * 31 + d));
  const points = Array.from({ length: BATCH }, (_, id) => ({
    id,
    vector: vector(id),
    payload: { group: id % 10, title: `point ${id}` },
  }));
  const bytes = Buffer.from(JSON.stringify({ points }));
  const parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  const parse = fastest(() => JSON.parse(bytes.toString('utf8')));
  const scan = fastest(() => depthExceededAt(bytes));
  const read = fastest(() => readUpsertPoints(parsed, dim, 'Cosine'));
  const mb = (bytes.length / 1024 / 1024).toFixed(1);
  console.log(
    `dim ${dim} (${mb} MiB): JSON.parse ${parse.toFixed(2)}, depth scan ${scan.toFixed(2)} ` +
      `(${((100 * scan) / parse).toFixed(1)}% of the parse), reading the points ${read.toFixed(2)}`,
  );
}

const brackets = Buffer.alloc(16 << 20, '[');
const refused = fastest(() => depthExceededAt(brackets), 1);
console.log(`16 MiB of '[': refused after ${refused.toFixed(3)} ms (JSON.parse never runs)`);
