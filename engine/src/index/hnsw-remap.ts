/**
 * Renumbers an HNSW graph after a vacuum moved the slots under it. The graph keeps its
 * shape, links and levels; only the slot numbers of its nodes and links change, so no
 * vector is compared and nothing is re-inserted.
 */
import type { HnswState } from './hnsw.js';

/**
 * The state of the same graph with each node `s` at slot `map[s]`. Every node must be
 * kept (`map[s] >= 0`), and the map must keep slot order, as a vacuum's does.
 */
export function remapState(state: HnswState, map: Int32Array): HnswState {
  const { capacity, params } = state;
  const m0 = state.links0.length / capacity;
  const stride = params.m + 1;
  const moved = (slot: number): number => {
    const to = slot < map.length ? map[slot]! : -1;
    if (to < 0) throw new Error(`HNSW node ${slot} was dropped by a vacuum`);
    return to;
  };
  const levels = new Int8Array(capacity).fill(-1);
  const links0 = new Int32Array(capacity * m0);
  const count0 = new Uint8Array(capacity);
  const upperOffsets = new Int32Array(capacity + 1);
  const upperData = new Int32Array(state.upperData.length);
  let total = 0;
  // Offsets of new slots up to here are written; nodes keep their order, so they fill in turn.
  let offsetsDone = 0;
  for (let slot = 0; slot < capacity; slot++) {
    const level = state.levels[slot]!;
    if (level < 0) continue;
    const to = moved(slot);
    levels[to] = level;
    const count = state.count0[slot]!;
    count0[to] = count;
    for (let i = 0; i < count; i++) links0[to * m0 + i] = moved(state.links0[slot * m0 + i]!);
    while (offsetsDone <= to) upperOffsets[offsetsDone++] = total;
    const from = state.upperOffsets[slot]!;
    for (let l = 0; l < level; l++) {
      // Each upper level is a count then `m` neighbours; entries past the count are unused.
      const at = from + l * stride;
      const n = state.upperData[at]!;
      upperData[total + l * stride] = n;
      for (let i = 1; i <= n; i++) {
        upperData[total + l * stride + i] = moved(state.upperData[at + i]!);
      }
    }
    total += level * stride;
  }
  while (offsetsDone <= capacity) upperOffsets[offsetsDone++] = total;
  return {
    ...state,
    entry: state.entry < 0 ? state.entry : moved(state.entry),
    levels,
    links0,
    count0,
    upperOffsets,
    upperData,
  };
}
