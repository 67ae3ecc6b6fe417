/**
 * The code-host records in MongoDB: accounts' hosts, agents' links, the
 * deliveries seen and the commits claimed (for replay protection) and the
 * commit of each deployment a webhook made. Deliveries expire by a periodic
 * delete, as FerretDB has no TTL indexes; a link's claimed commits last as
 * long as the link, so a delivery replayed after its id is forgotten still
 * deploys nothing.
 */
import type { Collection, Db } from 'mongodb';
import type { Tenant } from '../accounts/model.js';
import type {
  CodehostAccountDoc,
  CodehostCommitDoc,
  CodehostDeliveryDoc,
  CodehostDeploymentDoc,
  CodehostLinkDoc,
} from './model.js';

/** How long a delivery id is remembered. Providers redeliver within hours, not weeks. */
export const DELIVERY_RETENTION_MS = 7 * 24 * 3600_000;

const DUPLICATE_KEY = 11000;

/** The five collections and what is done with them. */
export class CodehostStore {
  private constructor(
    private readonly hosts: Collection<CodehostAccountDoc>,
    private readonly links: Collection<CodehostLinkDoc>,
    private readonly deliveries: Collection<CodehostDeliveryDoc>,
    private readonly deployments: Collection<CodehostDeploymentDoc>,
    private readonly commits: Collection<CodehostCommitDoc>,
  ) {}

  /** Opens the store's collections of `db`. */
  static open(db: Db): CodehostStore {
    return new CodehostStore(
      db.collection('codehost_accounts'),
      db.collection('codehost_links'),
      db.collection('codehost_deliveries'),
      db.collection('codehost_deployments'),
      db.collection('codehost_commits'),
    );
  }

  /** Creates the indexes the queries use; safe on every start. */
  async ensureIndexes(): Promise<void> {
    await Promise.all([
      this.links.createIndex({ accountId: 1, environment: 1 }),
      this.links.createIndex({ repositoryKey: 1 }),
      this.deliveries.createIndex({ receivedAt: 1 }),
      this.deployments.createIndex({ agentId: 1, createdAt: -1 }),
      this.commits.createIndex({ agentId: 1 }),
    ]);
  }

  /** The tenant's code host, or null. */
  host(tenant: Tenant): Promise<CodehostAccountDoc | null> {
    return this.hosts.findOne({ _id: hostId(tenant) });
  }

  /** Sets the tenant's code host, keeping when it was first connected. */
  async saveHost(
    tenant: Tenant,
    fields: Pick<CodehostAccountDoc, 'provider' | 'url' | 'username'>,
  ): Promise<CodehostAccountDoc> {
    const now = new Date();
    const existing = await this.host(tenant);
    const doc: CodehostAccountDoc = {
      _id: hostId(tenant),
      accountId: tenant.accountId,
      environment: tenant.environment,
      ...fields,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.hosts.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return doc;
  }

  /** Forgets the tenant's code host; true when there was one. */
  async deleteHost(tenant: Tenant): Promise<boolean> {
    return (await this.hosts.deleteOne({ _id: hostId(tenant) })).deletedCount === 1;
  }

  /** The agent's link, or null. */
  link(agentId: string): Promise<CodehostLinkDoc | null> {
    return this.links.findOne({ _id: agentId });
  }

  /** The tenant's links, for the status check. */
  tenantLinks(tenant: Tenant, limit: number): Promise<CodehostLinkDoc[]> {
    return this.links
      .find({ accountId: tenant.accountId, environment: tenant.environment })
      .sort({ createdAt: 1 })
      .limit(limit)
      .toArray();
  }

  /** The links to any of the repositories `keys` (comparable forms), for the route without an agent id. */
  linksTo(keys: readonly string[]): Promise<CodehostLinkDoc[]> {
    return this.links.find({ repositoryKey: { $in: [...keys] } }).toArray();
  }

  /** Creates or replaces the agent's link. */
  async saveLink(doc: CodehostLinkDoc): Promise<void> {
    await this.links.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  /** Removes the agent's link and the commits claimed for it; true when there was a link. */
  async deleteLink(agentId: string): Promise<boolean> {
    const deleted = (await this.links.deleteOne({ _id: agentId })).deletedCount === 1;
    // A new link has a new webhook secret: deliveries signed for this one can no longer come.
    await this.commits.deleteMany({ agentId });
    return deleted;
  }

  /** Records a delivery; false when it was seen before (a replay). */
  async claimDelivery(agentId: string, deliveryId: string, at: Date): Promise<boolean> {
    try {
      await this.deliveries.insertOne({ _id: `${agentId}:${deliveryId}`, agentId, receivedAt: at });
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  /** Forgets a delivery whose handling failed, so the provider's redelivery is handled. */
  async releaseDelivery(agentId: string, deliveryId: string): Promise<void> {
    await this.deliveries.deleteOne({ _id: `${agentId}:${deliveryId}` });
  }

  /**
   * Claims `commit` for the agent's link before it is deployed; false when it
   * was claimed before (deployed, or being deployed). Never pruned.
   */
  async claimCommit(agentId: string, commit: string, at: Date): Promise<boolean> {
    try {
      await this.commits.insertOne({
        _id: commitId(agentId, commit),
        agentId,
        commit,
        claimedAt: at,
      });
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === DUPLICATE_KEY) return false;
      throw err;
    }
  }

  /** Forgets a commit whose deployment failed, so the provider's redelivery deploys it. */
  async releaseCommit(agentId: string, commit: string): Promise<void> {
    await this.commits.deleteOne({ _id: commitId(agentId, commit) });
  }

  /** Deletes deliveries received before `before`; returns how many. */
  async pruneDeliveries(before: Date): Promise<number> {
    return (await this.deliveries.deleteMany({ receivedAt: { $lt: before } })).deletedCount;
  }

  /** Records the commit a deployment was made from. */
  async recordDeployment(doc: CodehostDeploymentDoc): Promise<void> {
    await this.deployments.insertOne(doc);
  }

  /** The agent's most recent deployments made by a webhook, newest first. */
  recentDeployments(agentId: string, limit: number): Promise<CodehostDeploymentDoc[]> {
    return this.deployments.find({ agentId }).sort({ createdAt: -1 }).limit(limit).toArray();
  }
}

function commitId(agentId: string, commit: string): string {
  return `${agentId}:${commit.toLowerCase()}`;
}

function hostId(tenant: Tenant): string {
  return `${tenant.environment}:${tenant.accountId}`;
}
