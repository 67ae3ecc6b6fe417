/**
 * A code-host delivery, from its signature to a deployment. Nothing happens
 * before the signature is checked against the webhook secret of the agent it
 * addresses (or, on the route without an agent, of every link to the
 * repository the payload names). Then: a push to the linked branch that was
 * not seen before is fetched with real git at exactly its commit, packed as a
 * client's upload would be, and deployed through the deploy service like any
 * upload; the commit is recorded on the deployment (its `source`) and beside
 * it for the link's recent deployments. Other events and branches are
 * ignored; a replayed delivery id, or a push of a commit the link already
 * deployed (or is deploying), does nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AgentDeployment, Tier } from '../../../crds/src/index.js';
import { ArchiveLimitError } from '../../../common/archive-limits.js';
import type { Logger } from '../../../common/logger.js';
import type { AccountService } from '../accounts/account-service.js';
import type { Plan } from '../accounts/plans.js';
import type { AuthContext } from '../auth/authenticate.js';
import {
  AgentNotFound,
  ArchiveTooLarge,
  CodehostFetchFailed,
  JsonBodyRequired,
  ValidationFailed,
  WebhookSignatureInvalid,
} from '../errors/catalogue.js';
import { deployedRoot } from './checkout-bounds.js';
import { sourceAnnotations } from './deployment-source.js';
import { DELIVERY_RETENTION_MS, type CodehostStore } from './codehost-store.js';
import { checkoutCommit, GitError } from './git.js';
import { pinHost } from './host-address.js';
import { HostUrlError, type HostUrlPolicy } from './host-url.js';
import type { CodehostLinkDoc } from './model.js';
import { packedPaths, packFiles, SubdirectoryError } from './pack.js';
import {
  comparableRepository,
  DeliveryParseError,
  readDelivery,
  type Delivery,
} from './push-event.js';
import { linkSecretName, type CodehostSecrets } from './secret-store.js';
import { signatureForm, verifySignature, type SignatureHeaders } from './signatures.js';
import { webhookAuth } from './webhook-auth.js';

/** What handling a delivery came to. */
export type WebhookOutcome =
  | {
      status: 'deployed';
      agentId: string;
      deliveryId: string;
      commit: string;
      deploymentId: string;
    }
  | { status: 'ignored'; agentId: string; deliveryId: string; reason: string }
  | { status: 'duplicate'; agentId: string; deliveryId: string }
  | { status: 'pong'; agentId: string; deliveryId: string };

/** What the service is built from. */
export interface WebhookServiceDeps {
  store: CodehostStore;
  secrets: CodehostSecrets;
  accounts: Pick<AccountService, 'getAccount'>;
  plans: Record<Tier, Plan>;
  /** Deploys an archive; `annotations` go on the new AgentDeployment (its source). */
  deploy: {
    deploy(
      auth: AuthContext,
      ref: string,
      body: Readable,
      annotations: Record<string, string>,
    ): Promise<AgentDeployment>;
  };
  log: Logger;
  /** Where a repository's host may be (checked again at each fetch: names resolve anew). */
  policy: HostUrlPolicy;
}

/** `application/json`, with or without parameters. */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** How often old delivery ids are deleted, at most. */
const PRUNE_EVERY_MS = 3600_000;

/** Handles deliveries. */
export class WebhookService {
  private lastPrune = 0;

  constructor(private readonly deps: WebhookServiceDeps) {}

  /**
   * Handles one delivery for the agent `agentId`, or for whichever link it is
   * signed for. `admit` runs once the signature is verified, with the linked
   * agent's id, before anything is done (the route's per-link rate limit, so
   * unsigned floods cannot spend a tenant's budget).
   */
  async handle(
    agentId: string | null,
    headers: SignatureHeaders,
    body: Buffer,
    admit: (linkedAgentId: string) => Promise<void> = async () => undefined,
  ): Promise<WebhookOutcome> {
    if (signatureForm(headers) === null) throw unsigned();
    const link = await this.verifiedLink(agentId, headers, body);
    await admit(link._id);
    const type = String(headers['content-type'] ?? '');
    if (!JSON_TYPE.test(type)) {
      throw new JsonBodyRequired(
        `Configure the webhook to send application/json, not "${type || 'none'}".`,
      );
    }
    let delivery: Delivery;
    try {
      delivery = readDelivery(headers, body);
    } catch (err) {
      if (!(err instanceof DeliveryParseError)) throw err;
      throw new ValidationFailed('Request validation failed', {
        fields: {
          violations: [{ loc: ['body'], msg: err.message, type: 'json_invalid' }],
        },
      });
    }
    const outcome = await this.act(link, delivery);
    this.deps.log.info('codehost delivery', {
      agent_id: link._id,
      delivery_id: delivery.deliveryId,
      event: delivery.event,
      status: outcome.status,
      ...(outcome.status === 'deployed'
        ? { commit: outcome.commit, deployment_id: outcome.deploymentId }
        : {}),
      ...(outcome.status === 'ignored' ? { reason: outcome.reason } : {}),
    });
    await this.maybePrune();
    return outcome;
  }

  /** The link whose webhook secret signed the delivery; 401 when none did. */
  private async verifiedLink(
    agentId: string | null,
    headers: SignatureHeaders,
    body: Buffer,
  ): Promise<CodehostLinkDoc> {
    const candidates = agentId
      ? [await this.deps.store.link(agentId)].filter((l): l is CodehostLinkDoc => l !== null)
      : await this.linksNamedBy(body);
    for (const link of candidates) {
      const secret = await this.deps.secrets.readWebhookSecret(link.namespace, link._id);
      if (secret !== null && verifySignature(headers, body, secret)) return link;
    }
    throw unsigned();
  }

  /** The links to the repository an (unverified) payload names; none when it names none. */
  private async linksNamedBy(body: Buffer): Promise<CodehostLinkDoc[]> {
    let urls: string[];
    try {
      urls = readDelivery({}, body).repositoryUrls.map(comparableRepository);
    } catch {
      return [];
    }
    return urls.length === 0 ? [] : this.deps.store.linksTo(urls);
  }

  private async act(link: CodehostLinkDoc, delivery: Delivery): Promise<WebhookOutcome> {
    const base = { agentId: link._id, deliveryId: delivery.deliveryId };
    if (delivery.event === 'ping') return { status: 'pong', ...base };
    if (delivery.event !== 'push') {
      return {
        status: 'ignored',
        ...base,
        reason: `event ${delivery.event} is not a push`,
      };
    }
    if (delivery.branch !== link.branch) {
      return {
        status: 'ignored',
        ...base,
        reason: `push to ${delivery.branch ?? 'a ref that is not a branch'}, not to ${link.branch}`,
      };
    }
    if (delivery.commit === null) {
      return {
        status: 'ignored',
        ...base,
        reason: 'the push deleted the branch',
      };
    }
    const { store } = this.deps;
    const commit = delivery.commit;
    // Both the id and the body must be new: the id header is not signed.
    const claims = [delivery.deliveryId, `sha256:${delivery.bodyDigest}`];
    const claimed: string[] = [];
    let commitClaimed = false;
    const release = () =>
      Promise.all([
        ...claimed.map((id) => store.releaseDelivery(link._id, id).catch(() => undefined)),
        commitClaimed ? store.releaseCommit(link._id, commit).catch(() => undefined) : undefined,
      ]);
    for (const id of new Set(claims)) {
      if (!(await store.claimDelivery(link._id, id, new Date()))) {
        await release();
        return { status: 'duplicate', ...base };
      }
      claimed.push(id);
    }
    // Delivery ids are forgotten after a week: a signed push replayed later must not roll the
    // agent back to its commit. A commit the link deployed, or is deploying, is not deployed again.
    if (!(await store.claimCommit(link._id, commit, new Date())))
      return { status: 'duplicate', ...base };
    commitClaimed = true;
    try {
      const outcome = await this.deployCommit(link, delivery, commit);
      // Nothing deployed (no host, a paused account): a later push of the commit may deploy it.
      if (outcome.status !== 'deployed') await store.releaseCommit(link._id, commit);
      return outcome;
    } catch (err) {
      // Let the provider's redelivery try again.
      await release();
      throw err;
    }
  }

  private async deployCommit(
    link: CodehostLinkDoc,
    delivery: Delivery,
    commit: string,
  ): Promise<WebhookOutcome> {
    const base = { agentId: link._id, deliveryId: delivery.deliveryId };
    const auth = webhookAuth(
      await this.deps.accounts.getAccount(link.accountId),
      link,
      this.deps.plans,
    );
    if ('refused' in auth) return { status: 'ignored', ...base, reason: auth.refused };
    const host = await this.deps.store.host(auth.tenant);
    const token = host ? await this.deps.secrets.readToken(link.namespace) : null;
    if (!host || token === null) {
      return {
        status: 'ignored',
        ...base,
        reason: 'the account has no code host connected',
      };
    }
    const dir = await mkdtemp(join(tmpdir(), 'svc-codehost-'));
    try {
      let archive: Buffer;
      try {
        await checkoutCommit(
          dir,
          link.repository,
          link.branch,
          commit,
          { username: host.username, token },
          auth.plan.archive,
          await pinHost(link.repository, this.deps.policy),
        );
        const root = await deployedRoot(dir, link.subdirectory ?? '');
        archive = await packFiles(root, await packedPaths(dir, link.subdirectory ?? ''));
      } catch (err) {
        if (err instanceof ArchiveLimitError) {
          throw new ArchiveTooLarge(
            `Commit ${commit}: ${err.message} A fetch checks out the whole commit, so its whole tree counts. Nothing was deployed.`,
            {
              cause: err,
              fields: {
                field: err.limit,
                allowed: err.allowed,
                tier: auth.account.tier,
                commit,
                ...(err.path ? { path: err.path } : {}),
              },
            },
          );
        }
        const fetchError =
          err instanceof GitError ||
          err instanceof SubdirectoryError ||
          err instanceof HostUrlError;
        if (!fetchError) throw err;
        throw new CodehostFetchFailed(err.message, { fields: { commit } });
      }
      let deployment: AgentDeployment;
      try {
        const { repository, branch } = link;
        deployment = await this.deps.deploy.deploy(
          auth,
          link._id,
          Readable.from([archive]),
          sourceAnnotations({ type: 'codehost', repository, branch, commit }),
        );
      } catch (err) {
        if (err instanceof AgentNotFound) {
          // The agent was deleted: its link and secret go too, so later deliveries are 401.
          await this.deps.store.deleteLink(link._id);
          await this.deps.secrets.delete(link.namespace, linkSecretName(link._id));
          return {
            status: 'ignored',
            ...base,
            reason: 'the agent no longer exists',
          };
        }
        throw err;
      }
      const deploymentId = deployment.metadata.name ?? '';
      await this.deps.store.recordDeployment({
        _id: deploymentId,
        agentId: link._id,
        accountId: link.accountId,
        environment: link.environment,
        repository: link.repository,
        branch: link.branch,
        commit,
        deliveryId: delivery.deliveryId,
        createdAt: new Date(),
      });
      return { status: 'deployed', ...base, commit, deploymentId };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async maybePrune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.deps.store
      .pruneDeliveries(new Date(now - DELIVERY_RETENTION_MS))
      .catch((err: unknown) => this.deps.log.warn('pruning codehost deliveries failed', { err }));
  }
}

function unsigned(): WebhookSignatureInvalid {
  return new WebhookSignatureInvalid(
    'The delivery is not signed with this webhook secret (X-Hub-Signature-256, X-Gitea-Signature or X-Gitlab-Token).',
  );
}
