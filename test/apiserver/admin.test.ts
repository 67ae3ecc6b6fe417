/** `npm run admin` commands, against the real MongoDB-wire server. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AccountService } from '../../apiserver/src/accounts/account-service.js';
import { runAdmin } from '../../apiserver/src/admin/cli.js';
import { ensureBootstrapKey } from '../../apiserver/src/admin/bootstrap.js';
import { collections, ensureIndexes } from '../../apiserver/src/store/database.js';
import type { Db, MongoClient } from 'mongodb';
import { mongoDatabase } from '../harness/env.js';

let client: MongoClient;
let db: Db;
let accounts: AccountService;

beforeAll(async () => {
  ({ client, db } = await mongoDatabase('admin'));
  const c = collections(db);
  await ensureIndexes(c);
  accounts = new AccountService(c, 'local');
});

afterAll(async () => {
  await db.dropDatabase();
  await client.close();
});

const admin = (line: string) =>
  runAdmin(line.split(' '), accounts) as Promise<Record<string, unknown>>;

describe('admin command', () => {
  it('creates an account with a tier and subscription status', async () => {
    const account = await admin(
      'create-account --name acme --tier starter --subscription trialing',
    );
    expect(account).toMatchObject({
      name: 'acme',
      tier: 'starter',
      subscriptionStatus: 'trialing',
      suspended: false,
    });
  });

  it('rejects an unknown tier or command', async () => {
    await expect(admin('create-account --name x --tier gold')).rejects.toThrow(
      /--tier must be one of/,
    );
    await expect(admin('launch-rockets')).rejects.toThrow(/unknown command/);
  });

  it('creates a key shown once, stores only its hash, lists it without secrets, and revokes it', async () => {
    const account = await admin('create-account --name keys');
    const key = await admin(`create-key --account ${String(account._id)} --env test --label ci`);
    expect(key.text).toMatch(/^svc_test_/);
    const stored = await db.collection('api_keys').findOne({ keyId: key.keyId });
    expect(JSON.stringify(stored)).not.toContain(String(key.text));
    expect(stored?._id).toMatch(/^[0-9a-f]{64}$/);

    const listed = (await runAdmin(
      ['list-keys', '--account', String(account._id)],
      accounts,
    )) as unknown[];
    expect(listed).toEqual([
      expect.objectContaining({
        keyId: key.keyId,
        environment: 'test',
        label: 'ci',
        revokedAt: null,
      }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(String(stored?._id));

    expect(await accounts.resolveKey(String(key.text))).not.toBeNull();
    await admin(`revoke-key --key ${String(key.keyId)}`);
    expect(await accounts.resolveKey(String(key.text))).toBeNull();
  });

  it('suspends and reinstates an account, and sets its subscription and tier', async () => {
    const account = await admin('create-account --name lifecycle');
    const id = String(account._id);
    expect(await admin(`suspend --account ${id}`)).toMatchObject({ suspended: true });
    expect(await admin(`reinstate --account ${id}`)).toMatchObject({ suspended: false });
    expect(await admin(`set-subscription --account ${id} --status canceled`)).toMatchObject({
      subscriptionStatus: 'canceled',
    });
    expect(await admin(`set-tier --account ${id} --tier enterprise`)).toMatchObject({
      tier: 'enterprise',
    });
    await expect(admin('suspend --account nope')).rejects.toThrow(/no account/);
  });
});

describe('bootstrap account', () => {
  it('creates a ready account and key once, and keeps a key that still resolves', async () => {
    const first = await ensureBootstrapKey(accounts, undefined);
    expect(first.created).toBe(true);
    const resolved = await accounts.resolveKey(first.key);
    expect(resolved?.account).toMatchObject({
      name: 'bootstrap',
      subscriptionStatus: 'active',
      suspended: false,
    });

    const again = await ensureBootstrapKey(accounts, first.key);
    expect(again).toEqual({ accountId: first.accountId, key: first.key, created: false });

    const afterLoss = await ensureBootstrapKey(accounts, `svc_live_${'x'.repeat(43)}`);
    expect(afterLoss.accountId).toBe(first.accountId);
    expect(afterLoss.key).not.toBe(first.key);
  });
});
