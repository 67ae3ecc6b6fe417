/**
 * Region-change operations in MongoDB (collection `region_operations`), so
 * they outlive the API server process that accepted them. Reads are always by
 * tenant: another account's operation is not found.
 */
import type { Collection, Db } from 'mongodb';
import type { Tenant } from '../accounts/model.js';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { RegionOperationDoc } from './model.js';

function unavailable(cause: unknown): ServiceUnavailable {
  return new ServiceUnavailable(
    'The database is unreachable; nothing was written. Retry in a few seconds.',
    { cause },
  );
}

/** The store of region-change operations. */
export class OperationStore {
  constructor(private readonly collection: Collection<RegionOperationDoc>) {}

  /** The store over `db`'s `region_operations` collection. */
  static open(db: Db): OperationStore {
    return new OperationStore(db.collection<RegionOperationDoc>('region_operations'));
  }

  /** Creates the indexes the queries rely on; safe to call on every start. */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndex({ accountId: 1, environment: 1, createdAt: -1 });
    await this.collection.createIndex({ state: 1 });
  }

  /** Records a new operation. */
  async insert(doc: RegionOperationDoc): Promise<void> {
    await this.collection.insertOne(doc).catch((err: unknown) => {
      throw unavailable(err);
    });
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
}
