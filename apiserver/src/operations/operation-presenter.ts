/** Shapes a region-change operation into the record `GET /api/v1/operations/{id}` returns. */
import { regionDelta, type RegionOperationDoc } from './model.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The Operation record. */
export function presentOperation(doc: RegionOperationDoc) {
  const { regionsToAdd, regionsToRemove } = regionDelta(doc.fromRegions, doc.toRegions);
  return {
    operation_id: doc._id,
    kind: 'region_change' as const,
    scope: doc.scope,
    workspace_name: doc.workspaceName,
    // A collection's change names the collection, and the workspace it moves to.
    ...(doc.collection
      ? {
          collection_name: doc.collection.name,
          ...(doc.collection.toWorkspace === undefined
            ? {}
            : { to_workspace_name: doc.collection.toWorkspace }),
        }
      : {}),
    state: doc.state,
    from_regions: doc.fromRegions,
    to_regions: doc.toRegions,
    regions_to_add: regionsToAdd,
    regions_to_remove: regionsToRemove,
    progress: {
      agents: doc.agents.map((a) => ({
        agent_id: a.agentId,
        name: a.name,
        state: a.state,
        ready_regions: a.readyRegions,
      })),
      collections: doc.collections.map((c) => ({
        name: c.name,
        state: c.state,
        points_copied: c.pointsCopied,
      })),
    },
    error: doc.error,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
    started_at: iso(doc.startedAt),
    finished_at: iso(doc.finishedAt),
  };
}
