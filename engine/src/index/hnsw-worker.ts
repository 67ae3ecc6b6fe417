/**
 * Worker thread that builds or extends an HNSW graph over a collection's shared vector
 * memory, so the engine keeps answering requests while it indexes. Receives a
 * {@link HnswBuildRequest} and posts back the graph's state, its arrays transferred
 * rather than copied.
 */
import { parentPort } from 'node:worker_threads';
import { spaceOf } from '../store/vector-arena.js';
import { Hnsw } from './hnsw.js';
import type { HnswBuildRequest } from './hnsw-build.js';

parentPort?.on('message', (request: HnswBuildRequest) => {
  const { memory, dim, distance, params, previous, slots } = request;
  const space = spaceOf(memory, dim, distance);
  const graph = previous
    ? Hnsw.fromState(space, previous)
    : new Hnsw(space, params, Math.max(1024, slots.length));
  for (const slot of slots) graph.insert(slot);
  const state = graph.toState();
  parentPort!.postMessage(state, [
    state.levels.buffer,
    state.links0.buffer,
    state.count0.buffer,
    state.upperOffsets.buffer,
    state.upperData.buffer,
  ] as ArrayBuffer[]);
});
