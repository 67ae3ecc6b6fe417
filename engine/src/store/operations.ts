/**
 * Write operations, parsed and validated, in the form the write-ahead log records and
 * {@link Collection.apply} replays. Vectors are already preprocessed (cosine normalised),
 * so replaying an operation stores exactly what was stored the first time.
 */
import type { IndexSchema } from '../index/payload-index.js';
import type { JsonObject } from '../../../common/json-path.js';
import type { PointId } from '../point-id.js';

/** Which points an operation touches: listed ids, or those a filter (raw JSON) selects. */
export type PointSelector = { ids: PointId[] } | { filter: unknown };

/** A point to store. */
export interface PointWrite {
  id: PointId;
  vector: Float32Array;
  payload: JsonObject | null;
}

/** A new vector for an existing point. */
export interface VectorWrite {
  id: PointId;
  vector: Float32Array;
}

/** One write to a collection. */
export type Operation =
  | { type: 'upsert'; points: PointWrite[] }
  | { type: 'delete_points'; selector: PointSelector }
  | { type: 'set_payload'; selector: PointSelector; payload: JsonObject; key?: string }
  | { type: 'overwrite_payload'; selector: PointSelector; payload: JsonObject }
  | { type: 'delete_payload'; selector: PointSelector; keys: string[] }
  | { type: 'clear_payload'; selector: PointSelector }
  | { type: 'update_vectors'; points: VectorWrite[] }
  | { type: 'create_index'; field: string; schema: IndexSchema }
  | { type: 'delete_index'; field: string };
