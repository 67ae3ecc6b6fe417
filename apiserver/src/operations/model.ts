/**
 * A region-change operation as the API server keeps it in MongoDB: which
 * workspace (or collection) moves from which regions to which, how far each
 * agent and collection has got, and how it ended. It is the record a
 * restarted API server resumes from (operation-runner.ts), and what
 * `GET /api/v1/operations/{id}` reads.
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

/** The states an operation ends in. */
export const FINISHED_STATES: readonly OperationState[] = ['succeeded', 'failed', 'rolled_back'];

/** What a region change applies to. */
export type OperationScope = 'workspace' | 'collection';

/**
 * The step a running operation is at; each is idempotent, so a runner that
 * takes over an operation repeats the step it finds and goes on.
 *
 * - `placing`: each agent gets a copy in every added region, then the runner
 *   waits until each added region's operator reports it ready;
 * - `copying`: each collection's points are copied to its new region's engine;
 * - `draining` (nothing is rolled back past here): the workspace takes its new
 *   regions, the copies in removed regions are deleted;
 * - `rolling_back`: what was added is removed, the old placement kept.
 */
export type OperationPhase = 'placing' | 'copying' | 'draining' | 'rolling_back';

/** How far one agent of the workspace has been placed and drained. */
export interface AgentProgress {
  agentId: string;
  name: string;
  /** `pending`, `placing`, `ready`, `done`, `failed`, `rolled_back`. */
  state: string;
  /** Regions where it is running and ready. */
  readyRegions: string[];
}

/** How far one collection's points have been copied. */
export interface CollectionProgress {
  name: string;
  /** `pending`, `copying`, `copied`, `dropped`, `failed`, `rolled_back`. */
  state: string;
  pointsCopied: number;
  /** The collection's MongoDB id (absent on records written before collections moved). */
  collectionId?: string;
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
  /** For a collection's change: the collection, and the workspace it moves to (null: out of any). */
  collection?: { id: string; name: string; toWorkspace?: string | null };
  fromRegions: string[];
  toRegions: string[];
  state: OperationState;
  /** The step a running operation is at; absent before it starts. */
  phase?: OperationPhase;
  agents: AgentProgress[];
  collections: CollectionProgress[];
  error: string | null;
  /** Failed attempts of the current step (transient errors are retried a few times). */
  attempts?: number;
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

/**
 * A failure that a retry cannot mend (a version that failed to build in the
 * new region, a wait that timed out): the operation rolls back at once.
 */
export class OperationFailure extends Error {}
