/**
 * The parsed form of a Qdrant query (`POST .../points/query` and its groups and batch
 * forms): a tree of stages, each with its own prefetches, scoring, filter and limit. The
 * readers in request/query.ts build it; run.ts executes it.
 */
import type { Filter } from '../filter/types.js';
import type { PointId } from '../point-id.js';
import type { QuantizationSearchParams } from '../quantization/scalar.js';
import type { OrderBy } from '../search/scroll.js';

/** A positive and a negative example, as vectors preprocessed like stored ones. */
export interface ContextPair {
  positive: Float32Array;
  negative: Float32Array;
}

/** How a stage scores (and orders) its points. */
export type Scoring =
  | { kind: 'nearest'; vector: Float32Array }
  | {
      kind: 'recommend';
      strategy: 'best_score' | 'sum_scores';
      positives: Float32Array[];
      negatives: Float32Array[];
    }
  | { kind: 'discover'; target: Float32Array; pairs: ContextPair[] }
  | { kind: 'context'; pairs: ContextPair[] }
  | { kind: 'order_by'; orderBy: OrderBy }
  | { kind: 'rrf'; k: number; weights?: number[] }
  | { kind: 'dbsf' }
  | { kind: 'sample' };

/** One stage: the root query or a prefetch. */
export interface Stage {
  prefetch: Stage[];
  /** Absent: points in id order with score 1 (no prefetch allowed then). */
  scoring?: Scoring;
  /** This stage's filter, and every enclosing stage's (Qdrant propagates them down). */
  filter?: Filter;
  limit: number;
  scoreThreshold?: number;
  exact: boolean;
  hnswEf?: number;
  quantization?: QuantizationSearchParams;
  /** Points the query named by id, which Qdrant leaves out of its results. */
  excludeIds?: Set<PointId>;
}

/** A point a stage found: its slot, its score and, when ordered by a field, the value. */
export interface Scored {
  slot: number;
  score: number;
  orderValue?: number;
}
