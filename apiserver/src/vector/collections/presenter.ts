/**
 * How a collection reads on the wire: bare names only, never the engine's.
 * The contract's fields (name, vectors, description, regions) sit beside the
 * shape the official Qdrant clients parse: `status` is Qdrant's (green,
 * yellow, grey, red) and the lifecycle label the dashboard shows
 * ({@link lifecycleOf}, the same as the X-Collection-Status header) is
 * `lifecycle_status`; the single read adds the engine's own description
 * (`config.params.vectors`, `optimizer_status`, `segments_count`,
 * `payload_schema`, counts).
 */
import { collectionUuid, type VectorCollectionDoc } from './model.js';

/** A collection `creating` for longer than this is shown as stalled. */
export const PROVISIONING_STALLED_MS = 30 * 60_000;

/**
 * The label the dashboard shows for a collection (`lifecycle_status`, the
 * X-Collection-Status header): `creating`, `provisioning_stalled` (creating
 * for more than 30 minutes), `region_change_in_progress` and
 * `workspace_move_in_progress` while a region change moves it,
 * `region_change_rolled_back` after its last region change failed and was
 * undone, `DEGRADED` when it is usable but not where it should be (its last
 * region change failed part-way, or its points are in none of its regions),
 * else `active`.
 */
export function lifecycleOf(doc: VectorCollectionDoc, now = Date.now()): string {
  if (doc.status === 'creating') {
    return now - doc.createdAt.getTime() > PROVISIONING_STALLED_MS
      ? 'provisioning_stalled'
      : 'creating';
  }
  if (doc.move)
    return doc.move.workspace === undefined
      ? 'region_change_in_progress'
      : 'workspace_move_in_progress';
  if (doc.lastChange?.state === 'failed') return 'DEGRADED';
  if (doc.engineRegion && !doc.regions.includes(doc.engineRegion)) return 'DEGRADED';
  if (doc.lastChange?.state === 'rolled_back') return 'region_change_rolled_back';
  return 'active';
}

/** Qdrant's collection status, which the official clients parse as an enum. */
export type EngineStatus = 'green' | 'yellow' | 'grey' | 'red';

/** The members of the engine's collection description that are relayed. */
const ENGINE_MEMBERS = [
  'status',
  'optimizer_status',
  'warnings',
  'indexed_vectors_count',
  'points_count',
  'segments_count',
  'config',
  'payload_schema',
] as const;

/**
 * Qdrant's status: grey while being created (not serving yet, as Qdrant's
 * grey is "optimizations pending"); once active, the engine's own, red when
 * the engine could not describe it, green when it was not asked.
 */
function statusOf(
  lifecycle: VectorCollectionDoc['status'],
  engine: Record<string, unknown> | null | undefined,
): unknown {
  if (lifecycle !== 'active') return 'grey' satisfies EngineStatus;
  if (engine === undefined) return 'green' satisfies EngineStatus;
  if (engine === null) return 'red' satisfies EngineStatus;
  return engine.status ?? 'green';
}

/**
 * The public shape of a collection. `engine` is the engine's description of
 * it on the single read (null when the engine could not give one); the
 * other routes do not ask the engine.
 */
export function presentCollection(
  doc: VectorCollectionDoc,
  engine?: Record<string, unknown> | null,
): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  if (engine) for (const key of ENGINE_MEMBERS) if (key in engine) described[key] = engine[key];
  return {
    ...described,
    id: collectionUuid(doc._id),
    name: doc.name,
    ...(doc.workspace === null ? {} : { workspace: doc.workspace }),
    vectors: { size: doc.size, distance: doc.distance },
    description: doc.description,
    regions: doc.regions,
    status: statusOf(doc.status, engine),
    lifecycle_status: lifecycleOf(doc),
    ...(engine === undefined ? {} : { points_count: described.points_count ?? null }),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}
