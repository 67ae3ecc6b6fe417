/**
 * Vector collection metadata as the gateway keeps it in MongoDB, and the
 * mapping between a tenant's bare collection names and the engine's
 * tenant-scoped names. Points live only in the engine; MongoDB holds what the
 * engine cannot know (owner, description, regions, status, usage by agents).
 */
import { createHash } from 'node:crypto';
import type { Environment } from '../../accounts/model.js';

/** Distances as stored and returned. */
export type Distance = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';

/** Lifecycle status recorded for a collection. */
export type CollectionStatus = 'creating' | 'active';

/** One collection of one tenant. `_id` is {@link collectionId}, so a create is one atomic insert. */
export interface VectorCollectionDoc {
  _id: string;
  accountId: string;
  environment: Environment;
  /** Null for collections outside any workspace. */
  workspace: string | null;
  name: string;
  engineName: string;
  size: number;
  distance: Distance;
  description: string | null;
  regions: string[];
  /**
   * The region whose engine holds the points (engines.ts); absent on a
   * collection recorded before regions had engines of their own: home's.
   */
  engineRegion?: string;
  /** A region change moving the points to another engine, while it runs (operations/collection-mover.ts). */
  move?: CollectionMove;
  /**
   * On the record reserved for a collection moving in from another workspace:
   * the operation moving it. Not served until the move switches to it.
   */
  incoming?: string;
  /** How the last region change of the collection ended. */
  lastChange?: { operationId: string; state: 'succeeded' | 'failed' | 'rolled_back'; at: Date };
  status: CollectionStatus;
  /** Average JSON bytes of the payloads upserts carried (the storage estimate); absent until the first. */
  payloadBytesPerPoint?: number;
  /** Bumped on every change; the ETag of the single-collection read. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A collection's points being moved to another region's engine. The phases,
 * as the gateway serves them:
 *
 * - `copying`: from the old engine; every write is applied there and then
 *   logged (the ids it changed) for the mover to copy again;
 * - `switching`: from the old engine, writes held (for a few seconds) while
 *   the mover copies what the log still holds;
 * - `dropping`: from the new engine (the collection has its new regions);
 *   the old copy is being dropped.
 */
export interface CollectionMove {
  operationId: string;
  phase: 'copying' | 'switching' | 'dropping';
  /** The region whose engine held the points, and the one receiving them. */
  fromRegion: string;
  toRegion: string;
  /** The regions the collection has once moved. */
  toRegions: string[];
  /** For a move to another workspace: the workspace it goes to (null: none). */
  workspace?: string | null;
  /** For a move to another workspace: the record and engine name it has there. */
  collectionId?: string;
  engineName?: string;
  /** How far the bulk copy has scrolled (the engine's next offset), to resume from. */
  cursor?: string | number | null;
  /** When the phase began. */
  since: Date;
}

/** One write a collection being moved took, to copy again (see {@link CollectionMove}). */
export interface MoveLogDoc {
  _id?: unknown;
  collectionId: string;
  /** The ids written; absent when the write named points by filter (everything is compared again). */
  ids?: Array<string | number>;
  /** The write changed payload indexes. */
  indexes?: boolean;
  at: Date;
}

/** When an agent last used a collection; one document per (collection, agent), one writer value. */
export interface CollectionUsageDoc {
  /** `<collection id>:<agent id>`. */
  _id: string;
  collectionId: string;
  agentId: string;
  lastUsedAt: Date;
}

/**
 * A deletion in progress. The unique `_id` (the collection id) is what makes a
 * second concurrent delete, or a create racing a delete, see 409
 * CLEANUP_IN_PROGRESS: inserts of one `_id` are atomic even on FerretDB.
 */
export interface CollectionDeletionDoc {
  _id: string;
  startedAt: Date;
}

/** Who addresses a collection: a tenant, and optionally a workspace of it. */
export interface CollectionScope {
  accountId: string;
  environment: Environment;
  workspace: string | null;
}

/** Collection names: 1 to 100 characters from `[a-zA-Z0-9_-]`. */
export const COLLECTION_NAME = /^[a-zA-Z0-9_-]{1,100}$/;

/** Workspace names carry no `_`, which keeps engine names unambiguous. */
export const WORKSPACE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Whether a record is served: not one reserved for a collection moving in,
 * nor one that has moved to another workspace (left until its old copy is dropped).
 */
export function isServed(doc: Pick<VectorCollectionDoc, 'incoming' | 'move'>): boolean {
  if (doc.incoming) return false;
  return !(doc.move?.phase === 'dropping' && doc.move.workspace !== undefined);
}

/**
 * The public id of a collection (its reads' `id`, what the control plane's
 * PATCH /api/v1/collections/{collection_id} takes): a UUID derived from its
 * record's id, so the same while it keeps its workspace and name.
 */
export function collectionUuid(id: string): string {
  const bytes = createHash('sha1').update('svc.dev/collection:').update(id, 'utf8').digest();
  const b = bytes.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The MongoDB id of a collection. */
export function collectionId(scope: CollectionScope, name: string): string {
  return `${scope.environment}:${scope.accountId}:${scope.workspace ?? ''}:${name}`;
}

/**
 * The engine's name for a tenant's collection. Workspace-less names start
 * `t_`, workspace ones `w_` followed by a workspace that has no `_`, so no two
 * (scope, name) pairs ever map to one engine name.
 */
export function engineCollectionName(scope: CollectionScope, name: string): string {
  const account = scope.accountId.replaceAll('-', '');
  return scope.workspace === null
    ? `t_${scope.environment}_${account}_${name}`
    : `w_${scope.environment}_${account}_${scope.workspace}_${name}`;
}

/** Matches an engine name, capturing the account part (hex, dashes removed). */
export const ENGINE_NAME = /^[tw]_(?:live|test)_([0-9a-fA-F]{32})_/;
