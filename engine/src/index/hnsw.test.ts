import { expect, test } from '@jest/globals';
import { preprocess, similarityFn } from '../distance.js';
import type { Distance } from '../distance.js';
import { VectorArena } from '../store/vector-arena.js';
import { seededRandom } from '../../../common/seeded-random.js';
import { FAILS, PASSES, UNKNOWN, passingBits } from './verdicts.js';
import { Hnsw } from './hnsw.js';
import type { HnswParams } from './hnsw.js';

function randomArena(n: number, dim: number, distance: Distance, seed: number): VectorArena {
  const random = seededRandom(seed);
  const arena = new VectorArena(dim, distance, { initialCapacity: 16 });
  for (let i = 0; i < n; i++) {
    arena.push(
      preprocess(
        distance,
        Float32Array.from({ length: dim }, () => random() * 2 - 1),
      ),
    );
  }
  return arena;
}

/** A graph over every slot of an arena, inserted in order. */
function graphOver(arena: VectorArena, params: HnswParams): Hnsw {
  const graph = new Hnsw(arena.space, params);
  for (let slot = 0; slot < arena.length; slot++) graph.insert(slot);
  return graph;
}

function exactTop(arena: VectorArena, query: Float32Array, k: number, distance: Distance) {
  const sim = similarityFn(distance);
  const scored = Array.from({ length: arena.length }, (_, slot) => ({
    slot,
    score: sim(arena.data, slot * arena.dim, query, 0, arena.dim),
  }));
  return scored
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((s) => s.slot);
}

test.each<Distance>(['Cosine', 'Euclid', 'Dot', 'Manhattan'])(
  'finds at least 90%% of the true top 10 (%s)',
  (distance) => {
    const dim = 12;
    const arena = randomArena(3000, dim, distance, 7);
    const graph = graphOver(arena, { m: 16, efConstruct: 100, seed: 1 });
    const queries = randomArena(50, dim, distance, 99);
    let hits = 0;
    for (let q = 0; q < 50; q++) {
      const query = queries.get(q);
      const truth = new Set(exactTop(arena, query, 10, distance));
      const found = graph.search(arena.placeQuery(query), 10, 100);
      hits += found.filter((h) => truth.has(h.slot)).length;
    }
    expect(hits / 500).toBeGreaterThanOrEqual(0.9);
  },
);

test('returns only accepted nodes, best first, and survives a round trip through its state', () => {
  const arena = randomArena(1000, 8, 'Euclid', 3);
  const graph = graphOver(arena, { m: 8, efConstruct: 64, seed: 2 });
  const copy = Hnsw.fromState(arena.space, graph.toState());
  const hits = copy.search(arena.pointer(0), 10, 64, (slot) => slot % 2 === 1);
  expect(hits).toHaveLength(10);
  expect(hits.every((h) => h.slot % 2 === 1)).toBe(true);
  expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
});

test('a two-hop walk under a selective filter finds the filtered top 10 and nothing rejected', () => {
  const dim = 12;
  const arena = randomArena(4000, dim, 'Cosine', 11);
  const graph = graphOver(arena, { m: 16, efConstruct: 100, seed: 3 });
  const accept = (slot: number) => slot % 10 === 3;
  const queries = randomArena(30, dim, 'Cosine', 12);
  const sim = similarityFn('Cosine');
  let hits = 0;
  for (let q = 0; q < 30; q++) {
    const query = queries.get(q);
    const truth = new Set(
      Array.from({ length: arena.length }, (_, slot) => slot)
        .filter(accept)
        .map((slot) => ({ slot, score: sim(arena.data, slot * dim, query, 0, dim) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10)
        .map((s) => s.slot),
    );
    const found = graph.search(arena.placeQuery(query), 10, 64, accept, true);
    expect(found.every((h) => accept(h.slot))).toBe(true);
    hits += found.filter((h) => truth.has(h.slot)).length;
  }
  expect(hits / 300).toBeGreaterThanOrEqual(0.9);
});

test('a walk given verdicts answers as one that asks, and asks only where none is known', () => {
  const dim = 12;
  const arena = randomArena(3000, dim, 'Cosine', 21);
  const graph = graphOver(arena, { m: 16, efConstruct: 100, seed: 4 });
  const passes = (slot: number) => slot % 7 === 2;
  // Every third slot's verdict is unknown; the others say what `passes` would.
  const verdicts = Uint8Array.from({ length: arena.length }, (_, slot) =>
    slot % 3 === 0 ? UNKNOWN : passes(slot) ? PASSES : FAILS,
  );
  const full = Uint8Array.from({ length: arena.length }, (_, slot) =>
    passes(slot) ? PASSES : FAILS,
  );
  const asked: number[] = [];
  const asking = (slot: number) => {
    asked.push(slot);
    return passes(slot);
  };
  const queries = randomArena(20, dim, 'Cosine', 22);
  for (let q = 0; q < 20; q++) {
    const at = arena.placeQuery(queries.get(q));
    for (const twoHop of [false, true]) {
      const plain = graph.search(at, 10, 64, passes, twoHop);
      asked.length = 0;
      const known = { bytes: verdicts, passing: undefined };
      expect(graph.search(at, 10, 64, asking, twoHop, known)).toEqual(plain);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((slot) => slot % 3 === 0)).toBe(true);
      // With every verdict known, the bits alone answer (these bytes would ask every time).
      const bits = { bytes: new Uint8Array(arena.length), passing: passingBits(full) };
      asked.length = 0;
      expect(graph.search(at, 10, 64, asking, twoHop, bits)).toEqual(plain);
      expect(asked).toEqual([]);
    }
  }
});

test("a two-hop walk over its filter's kept lists answers as one over the links, and drops them when the graph grows", () => {
  const dim = 12;
  const arena = randomArena(3000, dim, 'Cosine', 41);
  const graph = new Hnsw(arena.space, { m: 16, efConstruct: 100, seed: 6 });
  for (let slot = 0; slot < 2500; slot++) graph.insert(slot);
  const passes = (slot: number) => slot % 9 === 4;
  const full = Uint8Array.from({ length: arena.length }, (_, slot) =>
    passes(slot) ? PASSES : FAILS,
  );
  // One filter's verdicts for every query, as a plan keeps them: the lists are worked out by
  // the first walks and read by the later ones.
  const bits = { bytes: full, passing: passingBits(full) };
  const queries = randomArena(30, dim, 'Cosine', 42);
  const walks = () =>
    Array.from({ length: 30 }, (_, q) => {
      const at = arena.placeQuery(queries.get(q));
      return [graph.search(at, 24, 24, passes, true), graph.search(at, 24, 24, passes, true, bits)];
    });
  for (let round = 0; round < 2; round++) {
    for (const [plain, listed] of walks()) expect(listed).toEqual(plain);
  }
  // The new nodes link to old ones: lists kept from before would not lead to them.
  for (let slot = 2500; slot < 3000; slot++) graph.insert(slot);
  const after = walks();
  expect(after.some(([plain]) => plain!.some((h) => h.slot >= 2500))).toBe(true);
  for (const [plain, listed] of after) expect(listed).toEqual(plain);
});

test('a graph keeps the two-hop lists of its last eight filters, and their entries within its budget', () => {
  const arena = randomArena(2000, 8, 'Cosine', 51);
  const graph = graphOver(arena, { m: 8, efConstruct: 64, seed: 7 });
  const passes = (slot: number) => slot % 11 === 5;
  const full = Uint8Array.from({ length: arena.length }, (_, slot) =>
    passes(slot) ? PASSES : FAILS,
  );
  const kept = graph as unknown as {
    hopLists: Map<Uint32Array, { length: number }>;
    hopEntries: number;
  };
  const at = arena.placeQuery(randomArena(1, 8, 'Cosine', 52).get(0));
  // A write makes a plan's bits anew: twenty writes, twenty filters' lists.
  for (let write = 0; write < 20; write++) {
    const bits = { bytes: full, passing: passingBits(full) };
    expect(graph.search(at, 10, 16, passes, true, bits)).toEqual(
      graph.search(at, 10, 16, passes, true),
    );
    expect(kept.hopLists.get(bits.passing!)!.length).toBeGreaterThan(0);
  }
  expect(kept.hopLists.size).toBe(8);
  const total = [...kept.hopLists.values()].reduce((sum, lists) => sum + lists.length, 0);
  expect(kept.hopEntries).toBe(total);
});

test('walks keep finding the same after their visit marks wrap around', () => {
  const arena = randomArena(2000, 8, 'Euclid', 31);
  const built = graphOver(arena, { m: 8, efConstruct: 64, seed: 5 });
  // A graph from its state starts its marks afresh (the build's walks used many).
  const graph = Hnsw.fromState(arena.space, built.toState());
  const queries = randomArena(10, 8, 'Euclid', 32);
  const at = (q: number) => arena.placeQuery(queries.get(q % 10));
  const first = Array.from({ length: 10 }, (_, q) => graph.search(at(q), 10, 32));
  for (const hits of first) expect(new Set(hits.map((h) => h.slot)).size).toBe(10);
  // A mark is a byte: 600 walks wrap it twice.
  for (let q = 0; q < 600; q++) expect(graph.search(at(q), 10, 32)).toEqual(first[q % 10]);
});

test('the descent to level 0 scores no node twice and ends where a plain greedy descent does', () => {
  const dim = 12;
  const arena = randomArena(5000, dim, 'Cosine', 41);
  const built = graphOver(arena, { m: 4, efConstruct: 32, seed: 6 });
  const state = built.toState();
  expect(state.maxLevel).toBeGreaterThan(2);
  const scored: number[] = [];
  const { gather, gatherIds } = arena.space;
  const counting = {
    ...arena.space,
    gather: (q: number, count: number) => {
      scored.push(...gatherIds.subarray(0, count));
      gather(q, count);
    },
  };
  const graph = Hnsw.fromState(counting, state) as unknown as {
    descend(q: number, to: number): number;
  };
  const queries = randomArena(30, dim, 'Cosine', 42);
  for (let i = 0; i < 30; i++) {
    const q = arena.placeQuery(queries.get(i));
    const score = (slot: number) => arena.space.similarity(arena.pointer(slot), q, dim);
    // Each level: move to the best neighbour while it beats the current node.
    let best = state.entry;
    for (let level = state.maxLevel; level > 0; level--) {
      for (;;) {
        const links = state.upperData.subarray(
          state.upperOffsets[best],
          state.upperOffsets[best + 1],
        );
        const at = (level - 1) * (state.params.m + 1);
        const neighbours = [...links.subarray(at + 1, at + 1 + links[at]!)];
        const from = best;
        for (const n of neighbours) if (score(n) > score(best)) best = n;
        if (best === from) break;
      }
    }
    scored.length = 0;
    expect(graph.descend(q, 0)).toBe(best);
    expect(scored.length).toBeGreaterThan(0);
    expect(new Set(scored).size).toBe(scored.length);
  }
});
