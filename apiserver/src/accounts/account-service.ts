/**
 * Accounts and their API keys: what the admin command, the bootstrap of
 * `npm start` and authentication use. Key text leaves this module only once,
 * as the return value of {@link AccountService.createKey}.
 */
import { randomUUID } from 'node:crypto';
import type { Tier } from '../../../crds/src/index.js';
import type { Collections } from '../store/database.js';
import { hashKey, mintKey, parseKey } from './api-keys.js';
import type { AccountDoc, ApiKeyDoc, Environment, SubscriptionStatus } from './model.js';
import { resolvedKeysOf, type CachedResolution } from './resolved-keys.js';

/** Options of {@link AccountService.createAccount}. */
export interface NewAccount {
  name: string;
  tier?: Tier;
  subscriptionStatus?: SubscriptionStatus;
  homeRegion?: string;
}

/** Options of {@link AccountService.createKey}. */
export interface NewKey {
  accountId: string;
  environment: Environment;
  label?: string | null;
  agentId?: string | null;
  deploymentId?: string | null;
}

/** A key as listed: everything but the hash. */
export type KeySummary = Omit<ApiKeyDoc, '_id'>;

/** A key that resolved: the key record and its account. */
export type ResolvedKey = CachedResolution;

/** Thrown by admin operations on an unknown account or key. */
export class NotFoundError extends Error {}

/** Account and key operations over MongoDB. */
export class AccountService {
  /** Keys resolved by this process, shared by every instance over the database (resolved-keys.ts). */
  private readonly resolved;

  constructor(
    private readonly c: Pick<Collections, 'accounts' | 'apiKeys'>,
    private readonly defaultRegion: string,
  ) {
    this.resolved = resolvedKeysOf(c.apiKeys.dbName);
  }

  /** Creates an account; tier defaults to free and subscription to active. */
  async createAccount(input: NewAccount): Promise<AccountDoc> {
    const now = new Date();
    const account: AccountDoc = {
      _id: randomUUID(),
      name: input.name,
      tier: input.tier ?? 'free',
      subscriptionStatus: input.subscriptionStatus ?? 'active',
      suspended: false,
      homeRegion: input.homeRegion ?? this.defaultRegion,
      createdAt: now,
      updatedAt: now,
    };
    await this.c.accounts.insertOne(account);
    return account;
  }

  /** The account, or null. */
  async getAccount(accountId: string): Promise<AccountDoc | null> {
    return this.c.accounts.findOne({ _id: accountId });
  }

  /** Every account, oldest first. */
  async listAccounts(): Promise<AccountDoc[]> {
    return this.c.accounts.find({}).sort({ createdAt: 1 }).toArray();
  }

  /** Changes fields of an account; throws NotFoundError when it does not exist. */
  async updateAccount(
    accountId: string,
    changes: Partial<
      Pick<AccountDoc, 'tier' | 'subscriptionStatus' | 'suspended' | 'name' | 'homeRegion'>
    >,
  ): Promise<AccountDoc> {
    const updated = await this.c.accounts.findOneAndUpdate(
      { _id: accountId },
      { $set: { ...changes, updatedAt: new Date() } },
      { returnDocument: 'after' },
    );
    if (!updated) throw new NotFoundError(`no account ${accountId}`);
    this.resolved.deleteWhere((r) => r.account._id === accountId);
    return updated;
  }

  /** Mints a key; the returned `text` is the only time the key is seen in clear. */
  async createKey(input: NewKey): Promise<{ keyId: string; text: string; prefix: string }> {
    if (!(await this.getAccount(input.accountId)))
      throw new NotFoundError(`no account ${input.accountId}`);
    const minted = mintKey(input.environment);
    const key: ApiKeyDoc = {
      _id: minted.hash,
      keyId: randomUUID(),
      accountId: input.accountId,
      environment: input.environment,
      prefix: minted.prefix,
      label: input.label ?? null,
      agentId: input.agentId ?? null,
      deploymentId: input.deploymentId ?? null,
      createdAt: new Date(),
      revokedAt: null,
    };
    await this.c.apiKeys.insertOne(key);
    return { keyId: key.keyId, text: minted.text, prefix: minted.prefix };
  }

  /** Revokes a key by its public id; revoking twice keeps the first time. */
  async revokeKey(keyId: string): Promise<void> {
    const key = await this.c.apiKeys.findOne({ keyId });
    if (!key) throw new NotFoundError(`no key ${keyId}`);
    if (!key.revokedAt)
      await this.c.apiKeys.updateOne({ keyId }, { $set: { revokedAt: new Date() } });
    this.resolved.delete(key._id);
  }

  /** Revokes the keys `keyIds` that are still live; returns how many it revoked. */
  async revokeKeys(keyIds: readonly string[]): Promise<number> {
    if (keyIds.length === 0) return 0;
    const result = await this.c.apiKeys.updateMany(
      { keyId: { $in: [...keyIds] }, revokedAt: null },
      { $set: { revokedAt: new Date() } },
    );
    const revoked = new Set(keyIds);
    this.resolved.deleteWhere((r) => revoked.has(r.key.keyId));
    return result.modifiedCount;
  }

  /** Revokes every live key minted for a deployment of the agent; returns how many. */
  async revokeAgentKeys(accountId: string, agentId: string): Promise<number> {
    const result = await this.c.apiKeys.updateMany(
      { accountId, agentId, revokedAt: null },
      { $set: { revokedAt: new Date() } },
    );
    this.resolved.deleteWhere((r) => r.key.accountId === accountId && r.key.agentId === agentId);
    return result.modifiedCount;
  }

  /** The live keys minted for deployments: of one agent, or of every agent. */
  async liveDeploymentKeys(agentId?: string): Promise<KeySummary[]> {
    const keys = await this.c.apiKeys
      .find(agentId ? { agentId, revokedAt: null } : { agentId: { $ne: null }, revokedAt: null })
      .toArray();
    return keys.map(({ _id: _hash, ...rest }) => rest);
  }

  /** The keys of an account, without their hashes. */
  async listKeys(accountId: string): Promise<KeySummary[]> {
    const keys = await this.c.apiKeys.find({ accountId }).sort({ createdAt: 1 }).toArray();
    return keys.map(({ _id: _hash, ...rest }) => rest);
  }

  /**
   * The key and account behind a key's text, or null when it does not resolve
   * (malformed, unknown, revoked, or its account is gone). Database errors propagate.
   */
  async resolveKey(text: string): Promise<ResolvedKey | null> {
    if (!parseKey(text)) return null;
    const key = await this.c.apiKeys.findOne({ _id: hashKey(text) });
    if (!key || key.revokedAt) return null;
    const account = await this.c.accounts.findOne({ _id: key.accountId });
    return account ? { key, account } : null;
  }

  /**
   * {@link resolveKey} for authenticating a request: a key this process
   * resolved in the last few seconds is answered from memory, within the
   * staleness bounds of resolved-keys.ts (this process's own changes at once).
   */
  async resolveKeyCached(text: string): Promise<ResolvedKey | null> {
    if (!parseKey(text)) return null;
    const hash = hashKey(text);
    const hit = this.resolved.get(hash);
    if (hit) return hit;
    const resolved = await this.resolveKey(text);
    if (resolved) this.resolved.set(hash, resolved);
    return resolved;
  }
}
