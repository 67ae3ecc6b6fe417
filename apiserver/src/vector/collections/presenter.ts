/** How a collection reads on the wire: bare names only, never the engine's. */
import type { VectorCollectionDoc } from './model.js';

/** The public shape of a collection. */
export function presentCollection(
  doc: VectorCollectionDoc,
  extra: { pointsCount?: number | null } = {},
): Record<string, unknown> {
  return {
    name: doc.name,
    ...(doc.workspace === null ? {} : { workspace: doc.workspace }),
    vectors: { size: doc.size, distance: doc.distance },
    description: doc.description,
    regions: doc.regions,
    status: doc.status,
    ...(extra.pointsCount === undefined ? {} : { points_count: extra.pointsCount }),
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}
