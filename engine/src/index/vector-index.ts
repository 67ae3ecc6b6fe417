/**
 * The approximate index of one collection and the policy that keeps it fresh, after
 * Qdrant's optimizer: small collections are searched exactly; once a collection holds
 * `threshold` vectors, slots are indexed into an HNSW graph in a worker thread, a tail of
 * new slots at a time (when the tail reaches the threshold, or once writes pause). Slots
 * not yet in the graph are searched exactly, so every point is always findable. When a
 * third of the graph's nodes are deleted points, the graph is rebuilt from live slots.
 *
 * Every live slot below `indexedUpTo` is a node and no node is at or above it (a slot is
 * skipped only when already dead, and dead slots stay dead), so the graph's live and dead
 * nodes are counted from the tail alone. Slots move only in a vacuum, and the graph follows
 * them ({@link VectorIndex.remap}); while a build runs, only slots above those it reads
 * ({@link VectorIndex.frozenBelow}) may move.
 *
 * With scalar quantization, each build also writes the int8 codes of the slots it adds
 * (quantization/), and searches walk the same graph over the codes, then rescore the
 * candidates from the float vectors; the codes follow a vacuum like the graph.
 */
import type { Distance } from '../distance.js';
import { QuantizedVectors } from '../quantization/quantized-vectors.js';
import type { QuantizationSearchParams, ScalarQuantizationConfig } from '../quantization/scalar.js';
import { TopK } from '../search/top-k.js';
import type { PointStore } from '../store/point-store.js';
import { buildInWorker } from './hnsw-build.js';
import type { QuantizeRequest } from './hnsw-build.js';
import { remapState } from './hnsw-remap.js';
import type { KnownVerdicts } from './verdicts.js';
import { Hnsw } from './hnsw.js';

/** When and how to index. */
export interface VectorIndexOptions {
  /** Live vectors before a collection gets a graph, and tail size that triggers a build. */
  threshold: number;
  m: number;
  efConstruct: number;
  /** Quiet time after the last write before a smaller tail is indexed. */
  idleMs: number;
  /** Called when a build fails (the previous graph keeps serving). */
  onError(error: unknown): void;
  /**
   * Called when a build has ended, before the next one may start: the moment a vacuum may
   * move slots, since no worker reads them. An error it throws goes to {@link onError}.
   */
  afterBuild(): void;
  /** Int8 codes for the graph walk, written by each build; none unless given. */
  quantization?: ScalarQuantizationConfig;
}

/** A collection's HNSW graph plus its exactly-searched tail. */
export class VectorIndex {
  private graph: Hnsw | undefined;
  /** The graph's nodes quantized, and the graph walked over them. */
  private quantized: { rows: QuantizedVectors; graph: Hnsw } | undefined;
  /** Every slot below this one was offered to the graph (dead ones skipped). */
  private indexedUpTo = 0;
  private building: Promise<void> | undefined;
  /** The slots the running build reads: those below this one. */
  private buildEnd = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private builds = 0;
  /** When the last build failed; no new build starts for a while after, or it would spin. */
  private failedAt = -Infinity;

  constructor(
    private readonly store: PointStore,
    private readonly distance: Distance,
    private readonly options: VectorIndexOptions,
  ) {}

  /** Whether a build is running (Qdrant reports the collection `yellow` meanwhile). */
  get isBuilding(): boolean {
    return this.building !== undefined;
  }

  /** Live vectors reachable through the graph. */
  get indexedCount(): number {
    if (!this.graph) return 0;
    return this.store.liveCount - this.liveTail();
  }

  /** Retired slots the graph still walks through: its nodes whose points are gone. */
  get deadNodes(): number {
    if (!this.graph) return 0;
    return this.graph.nodes - this.indexedCount;
  }

  /** Whether a slot is a node of the graph (its vector must stay, even when retired). */
  isNode(slot: number): boolean {
    return this.graph?.has(slot) ?? false;
  }

  /** Live slots not in the graph yet, counted over the tail only. */
  private liveTail(): number {
    const { alive, slotCount } = this.store;
    let n = 0;
    for (let slot = this.indexedUpTo; slot < slotCount; slot++) if (alive[slot]) n++;
    return n;
  }

  /**
   * While a build runs, the slots it reads (and every node of the current graph) are those
   * below this number, which a vacuum must leave where they are; 0 when no build runs.
   */
  get frozenBelow(): number {
    return this.building ? this.buildEnd : 0;
  }

  /**
   * Follows a vacuum: `map[s]` is slot `s`'s new number, -1 for a dropped slot. The vacuum
   * kept every node of the graph and moved slots only down, in order. During a build it
   * must have left every slot below {@link frozenBelow} in place: the graph, and the one
   * the build returns, are then unchanged.
   */
  remap(map: Int32Array): void {
    const frozen = this.frozenBelow;
    if (frozen > 0) {
      // The map is increasing, so the slot below the frozen end in place means all of them are.
      if (map[frozen - 1] !== frozen - 1) {
        throw new Error('slots moved while an HNSW build was reading them');
      }
      return;
    }
    if (this.graph) {
      const state = remapState(this.graph.toState(), map);
      this.graph = Hnsw.fromState(this.store.vectors.space, state);
      if (this.quantized) {
        const { rows } = this.quantized;
        rows.compact(map, this.indexedUpTo);
        this.quantized = { rows, graph: this.graph.view(rows.space) };
      }
    }
    let kept = 0;
    for (let slot = 0; slot < this.indexedUpTo; slot++) if (map[slot]! >= 0) kept++;
    this.indexedUpTo = kept;
  }

  /** Resolves once no build is running (a build that ends may start the next one). */
  async settled(): Promise<void> {
    while (this.building) await this.building;
  }

  /** Tells the index that slots were added, so it may schedule a build. */
  noteWrite(): void {
    if (this.closed) return;
    this.maybeBuild(false);
    this.armIdleBuild();
  }

  /** Indexes a small tail once writes have been quiet for `idleMs`. */
  private armIdleBuild(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.maybeBuild(true), this.options.idleMs);
    this.idleTimer.unref();
  }

  /** Stops scheduling builds. */
  close(): void {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
  }

  private maybeBuild(idle: boolean): boolean {
    if (this.building || this.closed) return false;
    if (performance.now() - this.failedAt < 30_000) return false;
    const { store } = this;
    const live = store.liveCount;
    if (live < this.options.threshold) return false;
    const tail = store.slotCount - this.indexedUpTo;
    const nodes = this.graph?.nodes ?? 0;
    const rebuild = !this.graph || this.deadNodes * 3 > nodes;
    if (!rebuild && tail < this.options.threshold && !(idle && tail > 0)) return false;
    this.start(rebuild);
    return true;
  }

  private start(rebuild: boolean): void {
    const { store } = this;
    const end = store.slotCount;
    this.buildEnd = end;
    const from = rebuild ? 0 : this.indexedUpTo;
    const slots: number[] = [];
    for (let slot = from; slot < end; slot++) if (store.alive[slot]) slots.push(slot);
    const previous = rebuild ? undefined : this.graph?.toState();
    const quantize = this.quantizeRequest(rebuild, end);
    const build = buildInWorker({
      memory: store.vectors.memory,
      dim: store.dim,
      distance: this.distance,
      params: { m: this.options.m, efConstruct: this.options.efConstruct, seed: ++this.builds },
      previous,
      slots: Int32Array.from(slots),
      ...(quantize ? { quantize: quantize.request } : {}),
    }).then(
      ({ state, bounds }) => {
        const graph = Hnsw.fromState(store.vectors.space, state);
        this.graph = graph;
        this.indexedUpTo = end;
        if (quantize && bounds) {
          const rows =
            quantize.rows ??
            new QuantizedVectors(store.dim, this.distance, bounds, 0, quantize.request.memory);
          this.quantized = { rows, graph: graph.view(rows.space) };
        }
      },
      (error: unknown) => {
        this.failedAt = performance.now();
        this.options.onError(error);
      },
    );
    this.building = build.finally(() => {
      this.building = undefined;
      if (this.closed) return;
      try {
        this.options.afterBuild();
      } catch (error) {
        this.options.onError(error);
      }
      if (this.maybeBuild(false)) return;
      // Writes that came during the build left a tail; a quiet-time build that fired meanwhile
      // found this build running and did nothing, so the tail would wait for the next write.
      if (this.store.slotCount > this.indexedUpTo) this.armIdleBuild();
    });
  }

  /**
   * Where a build writes quantized rows: for a new graph, a new memory (the serving rows
   * stay as they are until it ends) with bounds the worker finds; when extending, the
   * serving rows, grown here, whose bounds the new slots are encoded with.
   */
  private quantizeRequest(
    rebuild: boolean,
    end: number,
  ): { request: QuantizeRequest; rows?: QuantizedVectors } | undefined {
    const config = this.options.quantization;
    if (!config) return undefined;
    const quantile = config.quantile ?? 1;
    const current = this.quantized?.rows;
    if (rebuild || !current) {
      return { request: { memory: QuantizedVectors.allocate(this.store.dim, end), quantile } };
    }
    current.reserve(end);
    return { request: { memory: current.memory, bounds: current.bounds }, rows: current };
  }

  /**
   * The `k` most similar accepted slots to the query at byte offset `q`: approximate
   * through the graph, exact over the tail. Returns internal similarities, best first.
   * `twoHop` is for a filter that rejects most points ({@link Hnsw.search}).
   */
  search(
    q: number,
    k: number,
    ef: number,
    accept: (slot: number) => boolean,
    twoHop = false,
    quantized?: { vector: Float32Array; params: QuantizationSearchParams },
    verdicts?: KnownVerdicts,
  ): { score: number; slot: number }[] {
    const graph = this.graph;
    if (!graph) return [];
    const top = new TopK(k);
    const arena = this.store.vectors;
    if (this.quantized && quantized && !quantized.params.ignore) {
      const { rows, graph: walk } = this.quantized;
      const { rescore, oversampling } = quantized.params;
      // No more candidates than the graph has nodes, however large the oversampling.
      const wanted = rescore ? Math.min(Math.ceil(k * oversampling), Math.max(k, walk.nodes)) : k;
      const qq = rows.placeQuery(quantized.vector);
      const found = walk.search(qq, wanted, Math.max(ef, wanted), accept, twoHop, verdicts);
      // Rescoring: the candidates ranked by their full-precision similarity, as Qdrant does.
      for (const hit of found)
        top.push(rescore ? arena.similarity(hit.slot, q) : hit.score, hit.slot);
    } else {
      for (const hit of graph.search(q, k, ef, accept, twoHop, verdicts))
        top.push(hit.score, hit.slot);
    }
    const end = this.store.slotCount;
    for (let slot = this.indexedUpTo; slot < end; slot++) {
      if (accept(slot)) top.push(arena.similarity(slot, q), slot);
    }
    return top.sorted();
  }

  /** Whether {@link search} can be used (a graph exists). */
  get ready(): boolean {
    return this.graph !== undefined;
  }
}
