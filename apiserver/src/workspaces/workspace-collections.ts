/**
 * The vector collections of a workspace, read from the vector plane's
 * metadata in MongoDB: what keeps a workspace from being deleted besides its
 * agents.
 */
import type { Collection } from 'mongodb';
import type { Tenant } from '../accounts/model.js';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { VectorCollectionDoc } from '../vector/collections/model.js';

/** Names the collections of a workspace. */
export class WorkspaceCollections {
  constructor(private readonly collections: Collection<VectorCollectionDoc>) {}

  /** The names of `tenant`'s collections in `workspace`, sorted. */
  async namesIn(tenant: Tenant, workspace: string): Promise<string[]> {
    return (await this.in(tenant, workspace)).map((c) => c.name);
  }

  /** The ids and names of `tenant`'s collections in `workspace`, by name. */
  async in(tenant: Tenant, workspace: string): Promise<Array<{ id: string; name: string }>> {
    try {
      const docs = await this.collections
        .find(
          { accountId: tenant.accountId, environment: tenant.environment, workspace },
          { projection: { name: 1 } },
        )
        .toArray();
      return docs
        .map((d) => ({ id: d._id, name: d.name }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (cause) {
      throw new ServiceUnavailable(
        'The database is unreachable; nothing was changed. Retry in a few seconds.',
        { cause },
      );
    }
  }
}
