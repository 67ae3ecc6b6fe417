/**
 * A region-change operation as the API server keeps it in MongoDB: which
 * workspace (or, later, collection) moves from which regions to which, how
 * far each agent and collection has got, and how it ended. It is the record a
 * restarted API server resumes from, and what `GET /api/v1/operations/{id}`
 * reads.
 */
import type { Environment } from '../accounts/model.js';

/** Where an operation is in its life. */
export const OPERATION_STATES = [
  'pending',
  'running',
  'succeeded',
  'failed',
  'rolled_back',
] as const;
/** One of {@link OPERATION_STATES}. */
export type OperationState = (typeof OPERATION_STATES)[number];

/** What a region change applies to. */
export type OperationScope = 'workspace' | 'collection';

/** How far one agent of the workspace has been placed and drained. */
export interface AgentProgress {
  agentId: string;
  name: string;
  /** `pending`, `placing`, `ready`, `draining`, `done`, `failed`. */
  state: string;
  /** Regions where it is running and ready. */
  readyRegions: string[];
}

/** How far one collection's points have been copied. */
export interface CollectionProgress {
  name: string;
  /** `pending`, `copying`, `copied`, `dropped`, `failed`. */
  state: string;
  pointsCopied: number;
}

/** One region-change operation. `_id` is the operation id (a UUID). */
export interface RegionOperationDoc {
  _id: string;
  accountId: string;
  environment: Environment;
  scope: OperationScope;
  /** The workspace's id and name (for a workspace change, or a collection's workspace). */
  workspaceId: string | null;
  workspaceName: string | null;
  fromRegions: string[];
  toRegions: string[];
  state: OperationState;
  agents: AgentProgress[];
  collections: CollectionProgress[];
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** The regions an operation adds and removes, in the order they are listed. */
export function regionDelta(from: readonly string[], to: readonly string[]) {
  return {
    regionsToAdd: to.filter((r) => !from.includes(r)),
    regionsToRemove: from.filter((r) => !to.includes(r)),
  };
}
