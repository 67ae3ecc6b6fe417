/**
 * What the vector gateway's checks of hostile JSON (apiserver/src/vector/json-limits.ts) cost
 * on the upsert path, in process: per point, the number scan that refuses 1e400 (run on every
 * upserted point, whose vector is otherwise forwarded unparsed) beside the rest of the point's
 * handling (writeStampedPoint) and the body scanner (which now also counts nesting), and per
 * megabyte the nesting scan of a non-upsert body. Points carry float vectors of `dims`
 * (random, some in exponent notation) and a small text payload, as a user's would.
 *
 *   npx tsx bench/vector-body-checks.ts [points=20000] [dims=128] [rounds=5]
 *
 * Prints the median of `rounds` for each; the first round warms the JIT and is dropped.
 */
import { BatchWriter } from '../apiserver/src/vector/points/batch-writer.js';
import { stampOf, writeStampedPoint } from '../apiserver/src/vector/points/stamped-point.js';
import { UpsertScanner } from '../apiserver/src/vector/points/upsert-scanner.js';
import { WriteCheck } from '../apiserver/src/vector/schema/enforcement.js';
import { mayHoldNonFinite } from '../apiserver/src/vector/json-limits.js';
import { depthExceededAt } from '../common/json-depth.js';

const [count = 20_000, dims = 128, rounds = 5] = process.argv.slice(2).map(Number);

const raws = Array.from({ length: count }, (_, i) =>
  Buffer.from(
    JSON.stringify({
      id: i,
      vector: Array.from({ length: dims }, () => Math.random() * 2 - 1),
      payload: { title: `doc ${i}`, body: 'lorem ipsum dolor sit amet '.repeat(4) },
    }),
  ),
);
const body = Buffer.concat([
  Buffer.from('{"points":['),
  ...raws.flatMap((raw, i) => (i ? [Buffer.from(','), raw] : [raw])),
  Buffer.from(']}'),
]);
const megabytes = body.length / (1024 * 1024);

function time(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const samples = {
  finite: [] as number[],
  point: [] as number[],
  scan: [] as number[],
  depth: [] as number[],
};
const stamp = stampOf({ __svc_agent_id: null, __svc_deployment_id: null });
for (let round = 0; round <= rounds; round++) {
  const finite = time(() => raws.forEach((raw) => mayHoldNonFinite(raw)));
  const out = BatchWriter.acquire(body.length + count * 64);
  const point = time(() =>
    raws.forEach((raw, i) => writeStampedPoint(raw, i, stamp, WriteCheck.none(), out)),
  );
  const scan = time(() => {
    const scanner = new UpsertScanner({ onPoint: () => undefined, onField: () => undefined });
    for (let at = 0; at < body.length; at += 64 * 1024)
      scanner.push(body.subarray(at, at + 64 * 1024));
  });
  const depth = time(() => depthExceededAt(body, 127));
  if (round === 0) continue;
  samples.finite.push(finite);
  samples.point.push(point);
  samples.scan.push(scan);
  samples.depth.push(depth);
}

const perPoint = (ms: number) => `${((ms * 1000) / count).toFixed(2)} µs/point`;
console.log(
  `${count} points of ${dims} dims, ${megabytes.toFixed(1)} MB, median of ${rounds} rounds`,
);
console.log(`  number scan (1e400)      ${perPoint(median(samples.finite))}`);
console.log(
  `  writeStampedPoint (all)  ${perPoint(median(samples.point))} (the number scan included)`,
);
console.log(`  body scanner             ${perPoint(median(samples.scan))} (nesting counted)`);
console.log(`  nesting scan, whole body ${(median(samples.depth) / megabytes).toFixed(2)} ms/MB`);
