/**
 * Region-change operations in MongoDB, so they outlive the API server process
 * that accepted them (collection `region_operations`). Reads by route are
 * always by tenant: another account's operation is not found.
 *
 * Two more collections make the runner safe with several API servers on
 * FerretDB, whose updates are not atomic but whose inserts of one `_id` are:
 *
 * - `region_operation_locks`: one document per workspace or collection an
 *   unfinished operation changes, so a second change of it is refused;
 * - `region_operation_leases`: `<operation id>:<epoch>`, the runner that
 *   inserted the next epoch of an operation owns it until its lease runs out.
 *   A runner renews its lease while it works and stops writing once a later
 *   epoch exists (another runner took over after its lease ran out).
 */
import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { Tenant } from '../accounts/model.js';
import { RegionChangeInProgress, ServiceUnavailable } from '../errors/catalogue.js';
import { FINISHED_STATES, type RegionOperationDoc } from './model.js';

const DUPLICATE_KEY = 11000;

function isDuplicate(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

function unavailable(cause: unknown): ServiceUnavailable {
  return new ServiceUnavailable(
    'The database is unreachable; nothing was written. Retry in a few seconds.',
    { cause },
  );
}

/** What an unfinished operation holds: a workspace or a collection it changes. */
interface LockDoc {
  _id: string;
  operationId: string;
  createdAt: Date;
}

/** One runner's hold on an operation. */
interface LeaseDoc {
  _id: string;
  operationId: string;
  epoch: number;
  owner: string;
  until: Date;
}

/** A lease a runner holds. */
export interface Lease {
  operationId: string;
  epoch: number;
  owner: string;
}

/** Thrown when a runner finds that another one has taken its operation over. */
export class LeaseLost extends Error {}

/** The key of the lock on a workspace or collection of a tenant. */
export function lockKey(
  tenant: Pick<Tenant, 'accountId' | 'environment'>,
  kind: 'workspace' | 'collection',
  id: string,
): string {
  return `${tenant.environment}:${tenant.accountId}:${kind}:${id}`;
}

/** The store of region-change operations. */
export class OperationStore {
  private readonly collection: Collection<RegionOperationDoc>;
  private readonly locks: Collection<LockDoc>;
  private readonly leases: Collection<LeaseDoc>;

  private constructor(db: Db) {
    this.collection = db.collection<RegionOperationDoc>('region_operations');
    this.locks = db.collection<LockDoc>('region_operation_locks');
    this.leases = db.collection<LeaseDoc>('region_operation_leases');
  }

  /** The store over `db`'s collections. */
  static open(db: Db): OperationStore {
    return new OperationStore(db);
  }

  /** Creates the indexes the queries rely on; safe to call on every start. */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ accountId: 1, environment: 1, createdAt: -1 });
    await this.collection.createIndex({ state: 1 });
    await this.leases.createIndex({ operationId: 1, epoch: -1 });
  }

  /** Records a new operation (as it is, holding nothing). */
  async insert(doc: RegionOperationDoc): Promise<void> {
    await this.collection.insertOne(doc).catch((err: unknown) => {
      throw unavailable(err);
    });
  }

  /**
   * Records a new operation holding the locks `keys` (of the workspace or
   * collection it changes); 409 REGION_CHANGE_IN_PROGRESS, recording nothing,
   * when an unfinished operation holds one of them.
   */
  async accept(doc: RegionOperationDoc, keys: readonly string[]): Promise<void> {
    const taken: string[] = [];
    try {
      for (const key of keys) {
        await this.lock(key, doc._id);
        taken.push(key);
      }
      await this.collection.insertOne(doc);
    } catch (err) {
      await this.locks.deleteMany({ _id: { $in: taken }, operationId: doc._id }).catch(() => {});
      if (err instanceof RegionChangeInProgress) throw err;
      throw unavailable(err);
    }
  }

  /**
   * Takes the lock `key` for `operationId`. A lock whose operation finished,
   * or was never recorded (the process stopped between the two inserts), is
   * taken over.
   */
  private async lock(key: string, operationId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.locks.insertOne({ _id: key, operationId, createdAt: new Date() });
        return;
      } catch (err) {
        if (!isDuplicate(err)) throw err;
      }
      const held = await this.locks.findOne({ _id: key });
      if (!held) continue;
      const holder = await this.collection.findOne({ _id: held.operationId });
      const stale = holder
        ? FINISHED_STATES.includes(holder.state)
        : Date.now() - held.createdAt.getTime() > 60_000;
      if (!stale) {
        throw new RegionChangeInProgress(
          `Operation ${held.operationId} is still changing these regions; poll it and retry once it has finished.`,
          { fields: { operation_id: held.operationId } },
        );
      }
      await this.locks.deleteOne({ _id: key, operationId: held.operationId });
    }
    throw new RegionChangeInProgress('Another region change is starting; retry.', {
      fields: { operation_id: null },
    });
  }

  /**
   * 409 REGION_CHANGE_IN_PROGRESS when an unfinished operation holds the lock
   * `key`: a change asked for meanwhile is refused, even one that would be a
   * no-op against the record as it still is.
   */
  async assertFree(key: string): Promise<void> {
    let held: LockDoc | null;
    let holder: RegionOperationDoc | null = null;
    try {
      held = await this.locks.findOne({ _id: key });
      if (held) holder = await this.collection.findOne({ _id: held.operationId });
    } catch (err) {
      throw unavailable(err);
    }
    if (holder && !FINISHED_STATES.includes(holder.state)) {
      throw new RegionChangeInProgress(
        `Operation ${holder._id} is still changing these regions; poll it and retry once it has finished.`,
        { fields: { operation_id: holder._id } },
      );
    }
  }

  /** Gives up every lock `operationId` holds (it finished). */
  async unlock(operationId: string): Promise<void> {
    await this.locks.deleteMany({ operationId });
  }

  /** How many operations the tenant started since `since`. */
  async countSince(tenant: Pick<Tenant, 'accountId' | 'environment'>, since: Date) {
    try {
      return await this.collection.countDocuments({
        accountId: tenant.accountId,
        environment: tenant.environment,
        createdAt: { $gte: since },
      });
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** The tenant's operation `id`, or null (also when it is another tenant's). */
  async get(tenant: Tenant, id: string): Promise<RegionOperationDoc | null> {
    try {
      return await this.collection.findOne({
        _id: id,
        accountId: tenant.accountId,
        environment: tenant.environment,
      });
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** The operation `id`, whoever's it is (for the runner), or null. */
  async load(id: string): Promise<RegionOperationDoc | null> {
    return this.collection.findOne({ _id: id });
  }

  /** The ids of the operations not yet finished, oldest first. */
  async unfinished(): Promise<string[]> {
    const docs = await this.collection
      .find({ state: { $in: ['pending', 'running'] } }, { projection: { _id: 1 } })
      .sort({ createdAt: 1 })
      .toArray();
    return docs.map((d) => d._id);
  }

  /**
   * Takes the operation for `owner` for `leaseMs`, unless another runner's
   * lease on it is still running; null when it could not.
   */
  async claim(operationId: string, owner: string, leaseMs: number): Promise<Lease | null> {
    const current = await this.currentLease(operationId);
    if (current && current.owner !== owner && current.until.getTime() > Date.now()) return null;
    const epoch = (current?.epoch ?? 0) + 1;
    try {
      await this.leases.insertOne({
        _id: `${operationId}:${epoch}`,
        operationId,
        epoch,
        owner,
        until: new Date(Date.now() + leaseMs),
      });
    } catch (err) {
      if (isDuplicate(err)) return null;
      throw err;
    }
    // Older epochs are history now.
    await this.leases.deleteMany({ operationId, epoch: { $lt: epoch } }).catch(() => {});
    return { operationId, epoch, owner };
  }

  /** Extends `lease` by `leaseMs`; throws {@link LeaseLost} once another runner took over. */
  async renew(lease: Lease, leaseMs: number): Promise<void> {
    await this.assertHeld(lease);
    await this.leases.updateOne(
      { _id: `${lease.operationId}:${lease.epoch}` },
      { $set: { until: new Date(Date.now() + leaseMs) } },
    );
  }

  /** Ends `lease` early, so another runner need not wait for it to run out. */
  async release(lease: Lease): Promise<void> {
    await this.leases.updateOne(
      { _id: `${lease.operationId}:${lease.epoch}`, owner: lease.owner },
      { $set: { until: new Date(0) } },
    );
  }

  /**
   * Writes `changes` to the operation of `lease` (stamping updatedAt);
   * throws {@link LeaseLost}, writing nothing, once another runner took over.
   */
  async save(lease: Lease, changes: Partial<RegionOperationDoc>): Promise<void> {
    await this.assertHeld(lease);
    await this.collection.updateOne(
      { _id: lease.operationId },
      { $set: { ...changes, updatedAt: new Date() } },
    );
  }

  private async currentLease(operationId: string): Promise<LeaseDoc | null> {
    const [latest] = await this.leases.find({ operationId }).sort({ epoch: -1 }).limit(1).toArray();
    return latest ?? null;
  }

  private async assertHeld(lease: Lease): Promise<void> {
    const current = await this.currentLease(lease.operationId);
    if (!current || current.epoch !== lease.epoch || current.owner !== lease.owner) {
      throw new LeaseLost(`operation ${lease.operationId} was taken over`);
    }
  }
}
