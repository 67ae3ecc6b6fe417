/**
 * Collections of a tenant: metadata in MongoDB, points in the engine under a
 * tenant-scoped name. Creation is one atomic insert of the collection's `_id`
 * (FerretDB has no transactions, but unique inserts are atomic), then the
 * engine collection; deletion takes a lock document the same way, so a second
 * delete or a re-create meanwhile gets 409 CLEANUP_IN_PROGRESS.
 */
import { MongoServerError } from 'mongodb';
import type { AuthContext } from '../../auth/authenticate.js';
import {
  CleanupInProgress,
  CollectionExistsInOtherRegion,
  CollectionInUse,
  CollectionLimitExceeded,
  CollectionNameTaken,
  CollectionNotFound,
  CollectionOwnershipMismatch,
  RegionChangeInProgress,
} from '../../errors/catalogue.js';
import type { Collections } from '../../store/database.js';
import type { Engines } from '../engines.js';
import { TtlCache } from '../../../../common/ttl-cache.js';
import type { WorkspaceDirectory } from './workspace-directory.js';
import { engineFailure } from '../engine-errors.js';
import { deleteSchemasOf } from '../schema/store.js';
import {
  collectionId,
  ENGINE_NAME,
  engineCollectionName,
  isServed,
  type CollectionScope,
  type VectorCollectionDoc,
} from './model.js';
import { collectionCap, resolveRegions, validateDescription, type CreateRequest } from './rules.js';

/** An agent blocks deletion for this long after it last used a collection. */
export const IN_USE_WINDOW_MS = 35 * 24 * 60 * 60 * 1000;

/** A deletion lock older than this is taken to be left by a crashed process. */
const STALE_DELETION_MS = 10 * 60 * 1000;

const DUPLICATE_KEY = 11000;

function isDuplicate(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** The tenant (and workspace) a caller addresses. */
export function scopeOf(caller: AuthContext, workspace: string | null): CollectionScope {
  return { accountId: caller.account._id, environment: caller.key.environment, workspace };
}

/**
 * Refuses a name that is another account's engine name: callers only ever
 * send bare names, so such a name can only be an attempt on someone else's
 * collection. Decided from the name alone, so it reveals nothing about
 * whether that collection exists.
 */
export function refuseForeignEngineName(caller: AuthContext, name: string): void {
  const match = ENGINE_NAME.exec(name);
  if (match && match[1]!.toLowerCase() !== caller.account._id.replaceAll('-', '').toLowerCase()) {
    throw new CollectionOwnershipMismatch('The collection belongs to another account.', {
      fields: { collection_name: name },
    });
  }
}

/** The outcome of a create: whether it was new. */
export interface CreateOutcome {
  created: boolean;
  collection: VectorCollectionDoc;
}

/**
 * How long a collection lookup is reused. Another replica's delete or create
 * shows here within this time; until then a deleted collection's engine name
 * answers the engine's 404, and the name is the same for a re-create, so a
 * stale entry never reaches another tenant's data.
 */
const LOOKUP_TTL_MS = 2_000;

/** A collection `creating` for longer than this is taken to be a create that stopped. */
const STALLED_CREATE_MS = 60_000;

/** How often one process records the same agent's use of the same collection. */
const USAGE_WRITE_INTERVAL_MS = 60 * 60 * 1000;

/** Collection lifecycle and lookups. */
export class CollectionService {
  private readonly lookups: TtlCache<VectorCollectionDoc>;
  private readonly usageWritten: TtlCache<true>;

  constructor(
    private readonly c: Pick<
      Collections,
      'vectorCollections' | 'vectorCollectionUsage' | 'vectorDeletions' | 'payloadSchemas'
    >,
    private readonly engines: Engines,
    private readonly regions: readonly string[],
    private readonly workspaces: WorkspaceDirectory,
    private readonly now: () => number = () => Date.now(),
  ) {
    // Wall-clock TTLs: the injected clock is for the 35-day rule, which tests move by days.
    this.lookups = new TtlCache(LOOKUP_TTL_MS);
    this.usageWritten = new TtlCache(USAGE_WRITE_INTERVAL_MS);
  }

  /** The collection, or 404 COLLECTION_NOT_FOUND (also while it is being created or deleted). */
  async get(scope: CollectionScope, name: string): Promise<VectorCollectionDoc> {
    await this.assertWorkspace(scope);
    const id = collectionId(scope, name);
    const cached = this.lookups.get(id);
    if (cached) return cached;
    const found = await this.c.vectorCollections.findOne({ _id: id });
    // Reserved for a collection moving in, or moved to another workspace: not here.
    const doc = found && isServed(found) ? found : null;
    if (doc) this.lookups.set(id, doc);
    if (!doc) {
      throw new CollectionNotFound(`Collection ${name} not found.`, {
        fields: { collection_name: name },
      });
    }
    return doc;
  }

  /** Forgets the cached lookup of the collection `id` (its record changed). */
  forget(id: string): void {
    this.lookups.delete(id);
  }

  /** 404 NOT_FOUND when the scope names a workspace that does not exist. */
  private async assertWorkspace(scope: CollectionScope): Promise<void> {
    if (scope.workspace === null) return;
    await this.workspaces.assertExists(scope.accountId, scope.environment, scope.workspace);
  }

  /** Every collection of the tenant, workspace ones included, by name. */
  async list(scope: Omit<CollectionScope, 'workspace'>): Promise<VectorCollectionDoc[]> {
    const docs = await this.c.vectorCollections
      .find({ accountId: scope.accountId, environment: scope.environment })
      .sort({ workspace: 1, name: 1 })
      .toArray();
    return docs.filter(isServed);
  }

  /**
   * Creates a collection, or returns the existing one when its configuration
   * is the same (a script may call create on every run).
   */
  async create(
    caller: AuthContext,
    scope: CollectionScope,
    input: CreateRequest,
  ): Promise<CreateOutcome> {
    await this.assertWorkspace(scope);
    const id = collectionId(scope, input.name);
    if (await this.deletionInProgress(id)) throw cleanupInProgress(input.name);
    const existing = await this.c.vectorCollections.findOne({ _id: id });
    if (existing?.incoming) {
      throw new CollectionNameTaken(
        `A collection is moving into this workspace as ${input.name}; choose another name.`,
        { fields: { collection_name: input.name } },
      );
    }
    if (existing && !isServed(existing)) throw cleanupInProgress(input.name);
    if (existing) {
      const same = this.sameOrConflict(existing, input);
      return { created: false, collection: await this.finishStalledCreate(same) };
    }

    const owned = await this.list(scope);
    const cap = collectionCap(caller.plan);
    if (owned.length >= cap) {
      throw new CollectionLimitExceeded(`The ${caller.plan.tier} plan allows ${cap} collections.`, {
        fields: { field: 'collections', max: cap },
      });
    }
    const fixedRegion = owned[0]?.regions[0] ?? caller.account.homeRegion;
    const regions = resolveRegions(input.regions, caller.plan, this.regions, fixedRegion);

    const at = new Date(this.now());
    const doc: VectorCollectionDoc = {
      _id: id,
      accountId: scope.accountId,
      environment: scope.environment,
      workspace: scope.workspace,
      name: input.name,
      engineName: engineCollectionName(scope, input.name),
      size: input.size,
      distance: input.distance,
      description: input.description,
      regions,
      // Its points live in the engine of its first region.
      engineRegion: regions[0],
      status: 'creating',
      version: 1,
      createdAt: at,
      updatedAt: at,
    };
    try {
      await this.c.vectorCollections.insertOne(doc);
    } catch (err) {
      if (!isDuplicate(err)) throw err;
      // A concurrent create of the same name won the insert: answer as a re-create.
      const winner = await this.get(scope, input.name);
      return { created: false, collection: this.sameOrConflict(winner, input) };
    }
    try {
      await this.ensureEngineCollection(doc);
    } catch (err) {
      await this.c.vectorCollections.deleteOne({ _id: id }).catch(() => undefined);
      throw err;
    }
    await this.c.vectorCollections.updateOne({ _id: id }, { $set: { status: 'active' } });
    this.lookups.delete(id);
    return { created: true, collection: { ...doc, status: 'active' } };
  }

  /** Sets the description, the one mutable field. */
  async describe(
    scope: CollectionScope,
    name: string,
    description: unknown,
  ): Promise<VectorCollectionDoc> {
    const doc = await this.get(scope, name);
    const updated = {
      ...doc,
      description: validateDescription(description),
      version: doc.version + 1,
      updatedAt: new Date(this.now()),
    };
    await this.c.vectorCollections.replaceOne({ _id: doc._id }, updated);
    this.lookups.delete(doc._id);
    return updated;
  }

  /**
   * Deletes a collection unless an agent used it within 35 days (409
   * COLLECTION_IN_USE) or a deletion is already running (409
   * CLEANUP_IN_PROGRESS).
   */
  async delete(scope: CollectionScope, name: string): Promise<void> {
    const doc = await this.get(scope, name);
    if (doc.move) {
      throw new RegionChangeInProgress(
        `Collection ${name} is being moved by a region change; delete it once that has finished.`,
        { fields: { collection_name: name, operation_id: doc.move.operationId } },
      );
    }
    const agents = await this.blockingAgents(doc._id);
    if (agents.length > 0) {
      throw new CollectionInUse(
        `Agents used collection ${name} within the last 35 days; it cannot be deleted yet.`,
        { fields: { agents, collection_name: name } },
      );
    }
    try {
      await this.c.vectorDeletions.insertOne({ _id: doc._id, startedAt: new Date(this.now()) });
    } catch (err) {
      if (isDuplicate(err)) throw cleanupInProgress(name);
      throw err;
    }
    try {
      const res = await this.engines
        .forDoc(doc)
        .engine.send('DELETE', `/collections/${doc.engineName}`);
      if (res.status >= 400 && res.status !== 404) throw engineFailure(res);
      // Before the collection record: a failure here leaves a collection a retry deletes, never
      // a schema a re-created collection of the same name would inherit.
      await deleteSchemasOf(this.c.payloadSchemas, doc._id);
      await this.c.vectorCollections.deleteOne({ _id: doc._id });
      await this.c.vectorCollectionUsage.deleteMany({ collectionId: doc._id });
    } finally {
      this.lookups.delete(doc._id);
      await this.c.vectorDeletions.deleteOne({ _id: doc._id }).catch(() => undefined);
    }
  }

  /**
   * Records that an agent key used the collection. Observed on every
   * collection-scoped request, never declared. One document per (collection,
   * agent) holding a timestamp: concurrent writers all write "now", so the
   * non-atomic update of FerretDB loses nothing that matters. Written at most
   * hourly per process, which the 35-day window does not notice.
   */
  async recordUsage(caller: AuthContext, collection: VectorCollectionDoc): Promise<void> {
    const agentId = caller.key.agentId;
    if (!agentId) return;
    // createdAt: a re-created collection of the same name starts with no recorded use.
    const written = `${collection._id}:${collection.createdAt.getTime()}:${agentId}`;
    if (this.usageWritten.get(written)) return;
    const usage = {
      _id: `${collection._id}:${agentId}`,
      collectionId: collection._id,
      agentId,
      lastUsedAt: new Date(this.now()),
    };
    await this.c.vectorCollectionUsage.replaceOne({ _id: usage._id }, usage, { upsert: true });
    this.usageWritten.set(written, true);
  }

  private async blockingAgents(id: string): Promise<string[]> {
    const since = new Date(this.now() - IN_USE_WINDOW_MS);
    const docs = await this.c.vectorCollectionUsage
      .find({ collectionId: id, lastUsedAt: { $gte: since } })
      .toArray();
    return docs.map((d) => d.agentId).sort();
  }

  private async deletionInProgress(id: string): Promise<boolean> {
    const lock = await this.c.vectorDeletions.findOne({ _id: id });
    if (!lock) return false;
    if (this.now() - lock.startedAt.getTime() < STALE_DELETION_MS) return true;
    await this.c.vectorDeletions.deleteOne({ _id: id, startedAt: lock.startedAt });
    return false;
  }

  private sameOrConflict(existing: VectorCollectionDoc, input: CreateRequest): VectorCollectionDoc {
    if (existing.size !== input.size || existing.distance !== input.distance) {
      throw new CollectionNameTaken(
        `Collection ${input.name} exists with a different configuration.`,
        { fields: { collection_name: input.name } },
      );
    }
    if (input.regions && !sameSet(input.regions, existing.regions)) {
      throw new CollectionExistsInOtherRegion(
        `Collection ${input.name} already lives in ${existing.regions.join(', ')}.`,
        { fields: { collection_name: input.name, existing_regions: existing.regions } },
      );
    }
    return existing;
  }

  /**
   * Creates the engine collection. One that already exists under this
   * tenant-scoped name is kept when its configuration matches (a create that
   * stopped after the engine call, being finished now) and replaced otherwise
   * (left by an earlier collection of this name whose metadata is gone).
   */
  private async ensureEngineCollection(doc: VectorCollectionDoc): Promise<void> {
    const path = `/collections/${doc.engineName}`;
    const config = { vectors: { size: doc.size, distance: doc.distance } };
    const { engine } = this.engines.forDoc(doc);
    const res = await engine.send('PUT', path, config);
    if (res.status < 400) return;
    if (!(res.status === 409 || /already exists/i.test(res.text))) throw engineFailure(res);
    const info = await engine.send('GET', path);
    if (info.status === 200) {
      const vectors = (
        JSON.parse(info.text) as {
          result?: { config?: { params?: { vectors?: { size?: number; distance?: string } } } };
        }
      ).result?.config?.params?.vectors;
      if (vectors?.size === doc.size && vectors.distance === doc.distance) return;
    }
    await engine.send('DELETE', path);
    const retry = await engine.send('PUT', path, config);
    if (retry.status >= 400) throw engineFailure(retry);
  }

  /**
   * Finishes a create that stopped between the engine call and marking the
   * collection active (a crash, a lost connection): a re-create finds it
   * still `creating` after {@link STALLED_CREATE_MS} and completes it.
   */
  private async finishStalledCreate(doc: VectorCollectionDoc): Promise<VectorCollectionDoc> {
    if (doc.status !== 'creating' || this.now() - doc.createdAt.getTime() < STALLED_CREATE_MS) {
      return doc;
    }
    await this.ensureEngineCollection(doc);
    await this.c.vectorCollections.updateOne({ _id: doc._id }, { $set: { status: 'active' } });
    this.lookups.delete(doc._id);
    return { ...doc, status: 'active' };
  }
}

function cleanupInProgress(name: string): CleanupInProgress {
  return new CleanupInProgress(
    `A deletion of collection ${name} is still finishing; retry shortly.`,
    {
      fields: { collection_name: name },
    },
  );
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
