/**
 * How a collection reads on the wire: bare names only, never the engine's.
 * The contract's fields (name, vectors, description, regions) sit beside the
 * shape the official Qdrant clients parse: `status` is Qdrant's (green,
 * yellow, grey, red) and the lifecycle label the dashboard shows (`active`,
 * `creating`, the same as the X-Collection-Status header) is
 * `lifecycle_status`; the single read adds the engine's own description
 * (`config.params.vectors`, `optimizer_status`, `segments_count`,
 * `payload_schema`, counts).
 */
import type { CollectionStatus, VectorCollectionDoc } from './model.js';

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
  lifecycle: CollectionStatus,
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
    name: doc.name,
    ...(doc.workspace === null ? {} : { workspace: doc.workspace }),
    vectors: { size: doc.size, distance: doc.distance },
    description: doc.description,
    regions: doc.regions,
    status: statusOf(doc.status, engine),
    lifecycle_status: doc.status,
    ...(engine === undefined ? {} : { points_count: described.points_count ?? null }),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}
