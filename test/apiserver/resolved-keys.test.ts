/**
 * Resolved keys cached in the process (apiserver/src/accounts/resolved-keys.ts),
 * against the real MongoDB-wire server: every AccountService over one
 * database (the control plane's and the vector plane's) shares the cache, so
 * a change made through any of them applies to the next request at once; a
 * change written by another process is seen within the documented TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db, MongoClient } from 'mongodb';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { collections, ensureIndexes } from '../../apiserver/src/store/database.js';
import { mongoDatabase } from '../harness/env.js';

let client: MongoClient;
let db: Db;
/** As the control plane and the vector plane of one API server hold them. */
let controlPlane: AccountService;
let vectorPlane: AccountService;

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('resolved-keys'));
  await ensureIndexes(collections(db));
  controlPlane = new AccountService(collections(db), 'local');
  vectorPlane = new AccountService(collections(db), 'local');
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

async function newKey(agentId: string | null = null) {
  const account = await controlPlane.createAccount({ name: 'cached', tier: 'starter' });
  const key = await controlPlane.createKey({
    accountId: account._id,
    environment: 'live',
    agentId,
  });
  return { account, key };
}

describe('resolved keys', () => {
  it('applies a revocation made through another service of the process to the next lookup', async () => {
    const { key } = await newKey();
    expect((await vectorPlane.resolveKeyCached(key.text))?.key.keyId).toBe(key.keyId);
    await controlPlane.revokeKey(key.keyId);
    expect(await vectorPlane.resolveKeyCached(key.text)).toBeNull();
  });

  it("applies a suspension and a plan change at once, and an agent's keys' revocation", async () => {
    const { account, key } = await newKey();
    const agentKey = await controlPlane.createKey({
      accountId: account._id,
      environment: 'live',
      agentId: 'agent-1',
    });
    expect((await controlPlane.resolveKeyCached(key.text))?.account.suspended).toBeFalsy();
    expect(await vectorPlane.resolveKeyCached(agentKey.text)).not.toBeNull();
    await vectorPlane.updateAccount(account._id, { suspended: true, tier: 'enterprise' });
    expect((await controlPlane.resolveKeyCached(key.text))?.account).toMatchObject({
      suspended: true,
      tier: 'enterprise',
    });
    await controlPlane.revokeAgentKeys(account._id, 'agent-1');
    expect(await vectorPlane.resolveKeyCached(agentKey.text)).toBeNull();
    await controlPlane.revokeKeys([key.keyId]);
    expect(await vectorPlane.resolveKeyCached(key.text)).toBeNull();
  });

  it("sees another process's change only through the uncached lookup until the TTL passes", async () => {
    const { key } = await newKey();
    expect(await controlPlane.resolveKeyCached(key.text)).not.toBeNull();
    // Another process (the admin command, another replica) revokes it in the database.
    await collections(db).apiKeys.updateOne(
      { keyId: key.keyId },
      { $set: { revokedAt: new Date() } },
    );
    expect(await controlPlane.resolveKey(key.text)).toBeNull();
    expect(await controlPlane.resolveKeyCached(key.text)).not.toBeNull();
  });

  it('never caches a key that does not resolve, so a key minted later works at once', async () => {
    expect(await controlPlane.resolveKeyCached('not-a-key')).toBeNull();
    const { key } = await newKey();
    expect(await vectorPlane.resolveKeyCached(key.text)).not.toBeNull();
  });
});
