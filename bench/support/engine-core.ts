/**
 * The engine's core in a process of its own, for bench/engine-vs-qdrant-edge.ts: a
 * collection built and searched in-process (no HTTP, no JSON), as qdrant-edge's shard is
 * on the other side, so the two are compared engine to engine. Speaks JSON lines on
 * stdin/stdout like the qdrant-edge driver: one command per line, one answer per line,
 * `{ok}` or `{error}`; its memory is read from /proc by the parent.
 *
 *   {cmd: 'load', path, queries, dim, buckets, threshold, quantization?}  from float32 files
 *   {cmd: 'search_many', ef?, exact?, filter?, limit, quantization?}    latencies (s) and ids
 *
 * `quantization` on load is `{quantile?}` for int8 codes; on a search, Qdrant's
 * `{ignore, rescore, oversampling}`.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { preprocess } from '../../engine/src/distance.js';
import { parseFilter } from '../../engine/src/filter/parse.js';
import type { QuantizationSearchParams } from '../../engine/src/quantization/scalar.js';
import { search } from '../../engine/src/search/search.js';
import { Collection } from '../../engine/src/store/collection.js';
import { newCollectionConfig } from '../../engine/src/store/collection-config.js';
import type { PointWrite } from '../../engine/src/store/operations.js';

let collection: Collection | undefined;
let queries: Float32Array[] = [];
let seq = 0;

function readVectors(path: string, dim: number): Float32Array[] {
  const bytes = readFileSync(path);
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out: Float32Array[] = [];
  for (let at = 0; at < floats.length; at += dim) out.push(floats.slice(at, at + dim));
  return out;
}

/** Loads the points as the HTTP path would (1000 per upsert), then waits for the index. */
async function load(req: {
  path: string;
  queries: string;
  dim: number;
  buckets: number;
  threshold: number;
  quantization?: { quantile?: number };
}) {
  const { dim, buckets } = req;
  const config = newCollectionConfig('bench', dim, 'Cosine');
  if (req.quantization) config.quantization = { type: 'int8', ...req.quantization };
  const c = new Collection(config, {
    threshold: req.threshold,
    idleMs: 200,
    onError: (error) => console.error(error),
  });
  collection = c;
  c.apply({ type: 'create_index', field: 'bucket', schema: { type: 'integer' } }, ++seq);
  const vectors = readVectors(req.path, dim);
  const started = performance.now();
  for (let i = 0; i < vectors.length; i += 1000) {
    const points: PointWrite[] = vectors.slice(i, i + 1000).map((v, j) => ({
      id: i + j,
      vector: preprocess('Cosine', v),
      payload: { bucket: (i + j) % buckets },
    }));
    c.apply({ type: 'upsert', points }, ++seq);
  }
  const upsertSeconds = (performance.now() - started) / 1000;
  const count = vectors.length;
  // The vectors now live in the collection; drop the copies before memory is measured.
  vectors.length = 0;
  const indexStarted = performance.now();
  for (;;) {
    const index = c.vectorIndex;
    if (!index.isBuilding && index.indexedCount === c.points.liveCount) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  queries = readVectors(req.queries, dim).map((v) => preprocess('Cosine', v));
  (globalThis as { gc?: () => void }).gc?.();
  return { count, upsertSeconds, indexSeconds };
}

/** Searches each query in turn, timing each as qdrant-edge's search_many does. */
function searchMany(req: {
  ef?: number;
  exact?: boolean;
  filter?: unknown;
  limit: number;
  quantization?: QuantizationSearchParams;
}) {
  const c = collection!;
  const filter = parseFilter(req.filter);
  const latencies: number[] = [];
  const ids: unknown[][] = [];
  for (const vector of queries) {
    const started = performance.now();
    const hits = search(c, {
      vector,
      limit: req.limit,
      offset: 0,
      exact: req.exact ?? false,
      ...(req.ef === undefined ? {} : { hnswEf: req.ef }),
      ...(filter ? { filter } : {}),
      ...(req.quantization ? { quantization: req.quantization } : {}),
    });
    latencies.push((performance.now() - started) / 1000);
    ids.push(hits.map((h) => c.points.ids[h.slot]));
  }
  return { latencies, ids };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const req = JSON.parse(line) as { cmd: string } & any;
  let answer: unknown;
  try {
    if (req.cmd === 'load') answer = { ok: await load(req) };
    else if (req.cmd === 'search_many') answer = { ok: searchMany(req) };
    else answer = { error: `unknown command ${req.cmd}` };
  } catch (error) {
    answer = { error: String(error instanceof Error ? error.stack : error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
collection?.close();
