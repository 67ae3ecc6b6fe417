/**
 * Our HNSW (engine/src/index/hnsw.ts, JavaScript over the WebAssembly SIMD kernels)
 * against the native HNSW libraries on npm, in one process on the same data: build time
 * and the recall@10/QPS curve over `ef`, both in CPU seconds (steadier than wall time on a
 * shared machine). This is how the engine's index was chosen. The native libraries are
 * not dependencies of the platform: the first run installs the pinned versions into
 * .tools/ann-libraries (hnswlib-node builds with node-gyp).
 *
 *   ANN_KIND=clustered ANN_DIM=128 ANN_POINTS=100000 node --import tsx bench/ann-libraries.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hnsw } from '../engine/src/index/hnsw.js';
import { VectorArena } from '../engine/src/store/vector-arena.js';
import { groundTruth, makeVectors, normalized } from './support/vectors.js';
import type { DataKind } from './support/vectors.js';

const KIND = (process.env.ANN_KIND ?? 'clustered') as DataKind;
const DIM = Number(process.env.ANN_DIM ?? 128);
const POINTS = Number(process.env.ANN_POINTS ?? 100_000);
const QUERIES = Number(process.env.ANN_QUERIES ?? 500);
const EFS = (process.env.ANN_EFS ?? '16,32,64,100,128,200,300').split(',').map(Number);
const K = 10;
const M = 16;
const EF_CONSTRUCT = 100;

interface Library {
  name: string;
  build(base: Float32Array[]): void;
  /** Ids of the `K` nearest, with the search breadth `ef`. */
  search(query: Float32Array, ef: number): ArrayLike<number | bigint>;
}

function ours(): Library {
  const arena = new VectorArena(DIM, 'Cosine', { initialCapacity: POINTS });
  let graph: Hnsw;
  return {
    name: 'engine hnsw (js+wasm)',
    build(base) {
      for (const v of base) arena.push(v);
      graph = new Hnsw(arena.space, { m: M, efConstruct: EF_CONSTRUCT, seed: 1 }, POINTS);
      for (let slot = 0; slot < base.length; slot++) graph.insert(slot);
    },
    search(query, ef) {
      const q = arena.placeQuery(query);
      return graph.search(q, K, ef).map((h) => h.slot);
    },
  };
}

/** Where the compared libraries are installed, apart from the platform's own packages. */
const LIBRARIES_DIR = fileURLToPath(new URL('../.tools/ann-libraries/', import.meta.url));
const LIBRARIES = ['usearch@2.26.2', 'hnswlib-node@3.0.0'];
if (!existsSync(join(LIBRARIES_DIR, 'node_modules', 'hnswlib-node'))) {
  console.log(`installing ${LIBRARIES.join(', ')} into ${LIBRARIES_DIR}`);
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      LIBRARIES_DIR,
      ...LIBRARIES,
    ],
    { stdio: 'inherit' },
  );
}
const require = createRequire(join(LIBRARIES_DIR, 'package.json'));

function usearch(): Library | undefined {
  let lib: { Index: new (config: object) => UsearchIndex };
  try {
    lib = require('usearch');
  } catch {
    return undefined;
  }
  interface UsearchIndex {
    add(keys: BigUint64Array, vectors: Float32Array): void;
    search(v: Float32Array, k: number, threads: number): { keys: BigUint64Array };
    save(path: string): void;
    load(path: string): void;
  }
  const indexes = new Map<number, UsearchIndex>();
  const path = `/tmp/ann-libraries-usearch-${process.pid}.bin`;
  const make = (ef: number) =>
    new lib.Index({
      dimensions: DIM,
      metric: 'cos',
      connectivity: M,
      expansion_add: EF_CONSTRUCT,
      expansion_search: ef,
    });
  return {
    name: 'usearch (native)',
    build(base) {
      const index = make(EF_CONSTRUCT);
      const flat = new Float32Array(base.length * DIM);
      base.forEach((v, i) => flat.set(v, i * DIM));
      // One thread, as the engine's build worker has.
      (index as unknown as { add(k: BigUint64Array, v: Float32Array, t: number): void }).add(
        BigUint64Array.from(base, (_, i) => BigInt(i)),
        flat,
        1,
      );
      index.save(path);
    },
    search(query, ef) {
      // usearch fixes the search breadth per index: one loaded copy per `ef`.
      let index = indexes.get(ef);
      if (!index) {
        index = make(ef);
        index.load(path);
        indexes.set(ef, index);
      }
      return index.search(query, K, 1).keys;
    },
  };
}

function hnswlib(): Library | undefined {
  interface HnswlibIndex {
    initIndex(max: number, m: number, efConstruction: number, seed: number): void;
    addPoint(point: Float32Array | number[], label: number): void;
    setEf(ef: number): void;
    searchKnn(q: Float32Array | number[], k: number): { neighbors: number[] };
  }
  let lib: { HierarchicalNSW: new (space: string, dim: number) => HnswlibIndex };
  try {
    lib = require('hnswlib-node');
  } catch {
    return undefined;
  }
  const index = new lib.HierarchicalNSW('cosine', DIM);
  return {
    name: 'hnswlib-node (native)',
    build(base) {
      index.initIndex(base.length, M, EF_CONSTRUCT, 1);
      base.forEach((v, i) => index.addPoint(Array.from(v), i));
    },
    search(query, ef) {
      index.setEf(ef);
      return index.searchKnn(Array.from(query), K).neighbors;
    },
  };
}

const data = makeVectors(KIND, DIM, POINTS, QUERIES);
const base = data.base.map(normalized);
const queries = data.queries.map(normalized);
const truth = groundTruth(data, K);
console.log(
  `${POINTS} ${KIND} ${DIM}-d vectors, ${QUERIES} queries, m ${M}, ef_construct ${EF_CONSTRUCT}`,
);
for (const library of [ours(), usearch(), hnswlib()]) {
  if (!library) continue;
  const buildCpu = process.cpuUsage();
  library.build(base);
  const built = process.cpuUsage(buildCpu);
  const buildSeconds = (built.user + built.system) / 1e6;
  console.log(`${library.name}: build ${buildSeconds.toFixed(1)} s of CPU`);
  for (const ef of EFS) {
    library.search(queries[0]!, ef); // warm-up, and usearch loads its copy for this ef
    // CPU time rather than wall time, best of three rounds: the comparison holds on a
    // machine shared with others.
    let hits = 0;
    let seconds = Infinity;
    for (let round = 0; round < 3; round++) {
      hits = 0;
      const cpu = process.cpuUsage();
      queries.forEach((q, i) => {
        const found = library.search(q, ef);
        const want = new Set(truth[i]);
        for (let j = 0; j < found.length; j++) if (want.has(Number(found[j]))) hits++;
      });
      const used = process.cpuUsage(cpu);
      seconds = Math.min(seconds, (used.user + used.system) / 1e6);
    }
    const recall = hits / (QUERIES * K);
    console.log(
      `  ef ${String(ef).padStart(4)}  recall@10 ${recall.toFixed(3)}  QPS ${(QUERIES / seconds).toFixed(0)}`,
    );
  }
}
