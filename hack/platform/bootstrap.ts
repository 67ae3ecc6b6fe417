/** The bootstrap account of `npm start`, through the same service the admin command uses. */
import { MongoClient } from 'mongodb';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { ensureBootstrapKey } from '../../apiserver/src/admin/bootstrap.js';
import { collections } from '../../apiserver/src/store/database.js';

/** A live key of the bootstrap account: `existing` when it still resolves, else a new one. */
export async function bootstrapKey(
  mongoUri: string,
  existing: string | undefined,
): Promise<{ accountId: string; key: string; created: boolean }> {
  const client = new MongoClient(mongoUri, { serverSelectionTimeoutMS: 5000 });
  try {
    return await ensureBootstrapKey(
      new AccountService(collections(client.db()), 'local'),
      existing,
    );
  } finally {
    await client.close();
  }
}
