/**
 * How long the local control plane (etcd, kube-apiserver,
 * kube-controller-manager, FerretDB, CRDs applied) takes to come up: first
 * into a fresh directory (new certificates, empty etcd), then again on the
 * same directory, as `npm start` does after the first time. Prints one line
 * per run and the median of each kind.
 *
 *   npx tsx bench/control-plane-startup.ts [runs=3]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../hack/control-plane/index.js';

const runs = Number(process.argv[2] ?? 3);

async function timeStart(dir: string): Promise<number> {
  const started = performance.now();
  const cp = await startControlPlane({ dir, durable: true });
  const seconds = (performance.now() - started) / 1000;
  await cp.stop();
  return seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const cold: number[] = [];
const warm: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  cold.push(await timeStart(dir));
  warm.push(await timeStart(dir));
  console.log(
    `run ${i + 1}: fresh dir ${cold.at(-1)?.toFixed(2)} s, existing dir ${warm.at(-1)?.toFixed(2)} s`,
  );
  await rm(dir, { recursive: true, force: true });
}
console.log(
  `median over ${runs} runs: fresh dir ${median(cold).toFixed(2)} s, existing dir ${median(warm).toFixed(2)} s`,
);
