/** The account every API benchmark calls as, created straight in the control plane's MongoDB. */
import { MongoClient } from 'mongodb';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { collections, ensureIndexes } from '../../apiserver/src/store/database.js';

/** What a benchmark needs to call the API servers it starts. */
export interface BenchAccount {
  /** The `svc` database of the control plane's MongoDB, for the servers' `MONGODB_URI`. */
  mongoUri: string;
  accountId: string;
  /** A live user key of the account. */
  key: string;
}

/**
 * Creates an enterprise account (no rate limit, so the limit never caps the
 * numbers) and a live key in the `svc` database at `mongoUri`.
 */
export async function createBenchAccount(mongoUri: string): Promise<BenchAccount> {
  const uri = new URL(mongoUri);
  uri.pathname = '/svc';
  const mongo = new MongoClient(uri.toString());
  try {
    const c = collections(mongo.db());
    await ensureIndexes(c);
    const accounts = new AccountService(c, 'local');
    const account = await accounts.createAccount({ name: 'bench', tier: 'enterprise' });
    const { text: key } = await accounts.createKey({ accountId: account._id, environment: 'live' });
    return { mongoUri: uri.toString(), accountId: account._id, key };
  } finally {
    await mongo.close();
  }
}
