/**
 * Worker thread that builds or extends an HNSW graph over a collection's shared vector
 * memory, so the engine keeps answering requests while it indexes. Receives a
 * {@link HnswBuildRequest} and posts back the graph's state, its arrays transferred
 * rather than copied. When asked, it also writes the quantized rows of the slots it adds
 * (every slot of the graph, for a new graph), finding their bounds first if none are given.
 */
import { parentPort } from 'node:worker_threads';
import { QuantizedVectors } from '../quantization/quantized-vectors.js';
import { scalarBounds } from '../quantization/scalar.js';
import { spaceOf, vectorsBase } from '../store/vector-arena.js';
import { Hnsw } from './hnsw.js';
import type { HnswBuildRequest, HnswBuildResult } from './hnsw-build.js';

parentPort?.on('message', (request: HnswBuildRequest) => {
  const { memory, dim, distance, params, previous, slots, quantize } = request;
  const space = spaceOf(memory, dim, distance);
  const graph = previous
    ? Hnsw.fromState(space, previous)
    : new Hnsw(space, params, Math.max(1024, slots.length));
  for (const slot of slots) graph.insert(slot);
  const state = graph.toState();
  const result: HnswBuildResult = { state };
  if (quantize) {
    const data = new Float32Array(memory.buffer, vectorsBase(dim));
    const bounds = quantize.bounds ?? scalarBounds(data, dim, slots, quantize.quantile);
    const rows = new QuantizedVectors(dim, distance, bounds, 0, quantize.memory);
    for (const slot of slots) rows.encode(slot, data);
    result.bounds = bounds;
  }
  parentPort!.postMessage(result, [
    state.levels.buffer,
    state.links0.buffer,
    state.count0.buffer,
    state.upperOffsets.buffer,
    state.upperData.buffer,
  ] as ArrayBuffer[]);
});
