/**
 * The API server's MongoDB collections and their indexes. Everything stays in
 * the subset FerretDB v1 serves too: no transactions, change streams or TTL
 * indexes (expiry is a periodic delete), no `.` or `$` in keys.
 */
import type { Collection, Db } from 'mongodb';
import type { AccountDoc, ApiKeyDoc, Environment } from '../accounts/model.js';
import type { LogChunkDoc, LogHeadDoc } from '../logs/log-chunks.js';
import { LogStore } from '../logs/log-store.js';
import { MongoWindowStore, type RateBucket } from '../rate-limit/mongo-window-store.js';
import type {
  CollectionDeletionDoc,
  CollectionUsageDoc,
  MoveLogDoc,
  VectorCollectionDoc,
} from '../vector/collections/model.js';
import type { PayloadSchemaDoc } from '../vector/schema/model.js';

/** Reserves an agent name within a tenant; the unique `_id` makes concurrent creates safe. */
export interface NameReservationDoc {
  /** `<environment>:<account id>:<name>`. */
  _id: string;
  agentId: string;
  accountId: string;
  environment: Environment;
  name: string;
  createdAt: Date;
}

/** Allocates deployment versions: the unique `_id` makes concurrent deploys of one agent safe. */
export interface DeploymentVersionDoc {
  /** `<agent id>:<version>`. */
  _id: string;
  agentId: string;
  version: number;
  deploymentId: string;
  createdAt: Date;
}

/** The input payload of a run, read back by the run. */
export interface RunPayloadDoc {
  /** The run's deployment id. */
  _id: string;
  accountId: string;
  environment: Environment;
  agentId: string;
  payload: Record<string, unknown> | null;
  createdAt: Date;
}

/** Typed handles on the collections. */
export interface Collections {
  accounts: Collection<AccountDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  nameReservations: Collection<NameReservationDoc>;
  rateBuckets: Collection<RateBucket>;
  deploymentVersions: Collection<DeploymentVersionDoc>;
  runPayloads: Collection<RunPayloadDoc>;
  /** Agent log lines, a chunk per append (logs/log-chunks.ts). */
  logChunks: Collection<LogChunkDoc>;
  /** Where each agent's log chunks start and end. */
  logHeads: Collection<LogHeadDoc>;
  vectorCollections: Collection<VectorCollectionDoc>;
  vectorCollectionUsage: Collection<CollectionUsageDoc>;
  vectorDeletions: Collection<CollectionDeletionDoc>;
  /** Writes to collections being moved between regions' engines, to copy again. */
  vectorMoveLog: Collection<MoveLogDoc>;
  payloadSchemas: Collection<PayloadSchemaDoc>;
}

/** Opens the collections of `db`. */
export function collections(db: Db): Collections {
  return {
    accounts: db.collection<AccountDoc>('accounts'),
    apiKeys: db.collection<ApiKeyDoc>('api_keys'),
    nameReservations: db.collection<NameReservationDoc>('agent_names'),
    rateBuckets: db.collection<RateBucket>('rate_buckets'),
    deploymentVersions: db.collection<DeploymentVersionDoc>('deployment_versions'),
    runPayloads: db.collection<RunPayloadDoc>('run_payloads'),
    logChunks: db.collection<LogChunkDoc>('log_chunks'),
    logHeads: db.collection<LogHeadDoc>('log_heads'),
    vectorCollections: db.collection<VectorCollectionDoc>('vector_collections'),
    vectorCollectionUsage: db.collection<CollectionUsageDoc>('vector_collection_usage'),
    vectorDeletions: db.collection<CollectionDeletionDoc>('vector_deletions'),
    vectorMoveLog: db.collection<MoveLogDoc>('vector_move_log'),
    payloadSchemas: db.collection<PayloadSchemaDoc>('vector_payload_schemas'),
  };
}

/** Creates the indexes the queries rely on; safe to call on every start. */
export async function ensureIndexes(c: Collections): Promise<void> {
  await Promise.all([
    c.apiKeys.createIndex({ keyId: 1 }, { unique: true }),
    c.apiKeys.createIndex({ accountId: 1 }),
    c.apiKeys.createIndex({ agentId: 1 }),
    c.nameReservations.createIndex({ agentId: 1 }),
    c.deploymentVersions.createIndex({ agentId: 1, version: -1 }),
    MongoWindowStore.ensureIndexes(c.rateBuckets),
    LogStore.ensureIndexes(c.logChunks),
    c.vectorCollections.createIndex({ accountId: 1, environment: 1 }),
    c.vectorCollectionUsage.createIndex({ collectionId: 1, lastUsedAt: -1 }),
    c.payloadSchemas.createIndex({ collectionId: 1, version: -1 }),
    c.vectorMoveLog.createIndex({ collectionId: 1 }),
  ]);
}

/** A reservation's id. */
export function reservationId(environment: Environment, accountId: string, name: string): string {
  return `${environment}:${accountId}:${name}`;
}
