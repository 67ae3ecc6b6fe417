/**
 * Vector collection metadata as the gateway keeps it in MongoDB, and the
 * mapping between a tenant's bare collection names and the engine's
 * tenant-scoped names. Points live only in the engine; MongoDB holds what the
 * engine cannot know (owner, description, regions, status, usage by agents).
 */
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
  status: CollectionStatus;
  /** Average JSON bytes of the payloads upserts carried (the storage estimate); absent until the first. */
  payloadBytesPerPoint?: number;
  /** Bumped on every change; the ETag of the single-collection read. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
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
