/**
 * The code-host routes' work: an account's host (URL, provider, token) and
 * agents' links to a repository, branch and subdirectory, each with its
 * webhook secret. Secrets go to Kubernetes (secret-store.ts) and come back
 * out only once: the webhook secret in the answer to the link that made it.
 */
import { randomBytes } from 'node:crypto';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import {
  CodehostLinkNotFound,
  CodehostNotConnected,
  CodehostUrlNotAllowed,
} from '../errors/catalogue.js';
import type { CodehostStore } from './codehost-store.js';
import { HostUnresolved, pinHost } from './host-address.js';
import { checkHost, type HostCheck } from './host-check.js';
import {
  defaultUsername,
  guessProvider,
  HostUrlError,
  normaliseHostUrl,
  resolveRepository,
  type HostUrlPolicy,
} from './host-url.js';
import type {
  CodehostAccountDoc,
  CodehostDeploymentDoc,
  CodehostLinkDoc,
  CodehostProvider,
} from './model.js';
import { normaliseSubdirectory, SubdirectoryError } from './pack.js';
import { comparableRepository } from './push-event.js';
import { linkSecretName, TOKEN_SECRET, type CodehostSecrets } from './secret-store.js';

/** What connecting a host takes. */
export interface ConnectInput {
  url: string;
  token: string;
  provider?: CodehostProvider | null;
  username?: string | null;
}

/** What linking an agent takes. */
export interface LinkInput {
  repository: string;
  /** Defaults to `main`. */
  branch?: string;
  subdirectory?: string | null;
}

/** The host's status: whether the token works, and what was asked. */
export interface HostStatus {
  host: CodehostAccountDoc | null;
  checks: HostCheck[];
  checkedAt: Date;
}

/** What the service is built from. */
export interface CodehostServiceDeps {
  store: CodehostStore;
  secrets: CodehostSecrets;
  agents: Pick<AgentService, 'resolve'>;
  policy: HostUrlPolicy;
}

/** How many linked repositories a status check lists remotely at most. */
const STATUS_REPOSITORIES = 5;
/** How many push deployments a link shows. */
const RECENT_DEPLOYMENTS = 10;

/** Account hosts and agent links. */
export class CodehostService {
  constructor(private readonly deps: CodehostServiceDeps) {}

  /** Connects (or replaces) the tenant's code host and stores its token. */
  async connect(auth: AuthContext, input: ConnectInput): Promise<CodehostAccountDoc> {
    const url = this.hostUrl(input.url, 'url');
    try {
      await pinHost(url, this.deps.policy);
    } catch (err) {
      // A name that does not resolve yet is the status check's to report; one that resolves
      // to this machine or its network is refused now.
      if (!(err instanceof HostUnresolved)) throw refused(err, 'url');
    }
    const provider = input.provider ?? guessProvider(url);
    const username = input.username || defaultUsername(provider);
    await this.deps.secrets.writeToken(auth.tenant.namespace, input.token);
    return this.deps.store.saveHost(auth.tenant, { provider, url, username });
  }

  /** The tenant's code host; 404 CODEHOST_NOT_CONNECTED when none. */
  async host(auth: AuthContext): Promise<CodehostAccountDoc> {
    const host = await this.deps.store.host(auth.tenant);
    if (!host) throw notConnected();
    return host;
  }

  /** Forgets the host and deletes its token; links stay but cannot fetch until a host is connected again. */
  async disconnect(auth: AuthContext): Promise<void> {
    await this.host(auth);
    await this.deps.secrets.delete(auth.tenant.namespace, TOKEN_SECRET);
    await this.deps.store.deleteHost(auth.tenant);
  }

  /** Checks the token against the host. */
  async status(auth: AuthContext): Promise<HostStatus> {
    const host = await this.deps.store.host(auth.tenant);
    const checkedAt = new Date();
    if (!host) return { host: null, checks: [], checkedAt };
    const token = await this.deps.secrets.readToken(auth.tenant.namespace);
    if (token === null) {
      return {
        host,
        checks: [{ kind: 'api', target: host.url, ok: false, error: 'No token is stored.' }],
        checkedAt,
      };
    }
    const links = await this.deps.store.tenantLinks(auth.tenant, STATUS_REPOSITORIES);
    const repositories = [...new Set(links.map((l) => l.repository))];
    return {
      host,
      checks: await checkHost(host, token, repositories, this.deps.policy),
      checkedAt,
    };
  }

  /** Links the agent `ref`, replacing any link; returns the link and its new webhook secret. */
  async link(
    auth: AuthContext,
    ref: string,
    input: LinkInput,
  ): Promise<{ link: CodehostLinkDoc; webhookSecret: string }> {
    const agent = await this.deps.agents.resolve(auth, ref);
    const host = await this.host(auth);
    let repository: string;
    let subdirectory: string;
    try {
      repository = resolveRepository(host.url, input.repository, this.deps.policy);
      // Hosted forges redirect a clone URL without .git, and git here follows no redirect.
      if (host.provider !== 'git' && !repository.endsWith('.git')) repository += '.git';
    } catch (err) {
      throw refused(err, 'repository');
    }
    try {
      subdirectory = normaliseSubdirectory(input.subdirectory ?? null);
    } catch (err) {
      throw refused(err, 'subdirectory');
    }
    const agentId = agent.metadata.name ?? '';
    const existing = await this.deps.store.link(agentId);
    const now = new Date();
    const link: CodehostLinkDoc = {
      _id: agentId,
      accountId: auth.tenant.accountId,
      environment: auth.tenant.environment,
      namespace: auth.tenant.namespace,
      repository,
      repositoryKey: comparableRepository(repository),
      // Bodies are validated strictly, which applies no schema defaults.
      branch: input.branch ?? 'main',
      subdirectory: subdirectory || null,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const webhookSecret = randomBytes(32).toString('base64url');
    await this.deps.secrets.writeWebhookSecret(auth.tenant.namespace, agentId, webhookSecret);
    await this.deps.store.saveLink(link);
    return { link, webhookSecret };
  }

  /** The agent's link; 404 CODEHOST_LINK_NOT_FOUND when it has none. */
  async getLink(auth: AuthContext, ref: string): Promise<CodehostLinkDoc> {
    const agent = await this.deps.agents.resolve(auth, ref);
    const link = await this.deps.store.link(agent.metadata.name ?? '');
    if (!link) throw linkNotFound(ref);
    return link;
  }

  /** The agent's latest deployments made by pushes, newest first. */
  recentDeployments(link: CodehostLinkDoc): Promise<CodehostDeploymentDoc[]> {
    return this.deps.store.recentDeployments(link._id, RECENT_DEPLOYMENTS);
  }

  /** Removes the agent's link and its webhook secret. */
  async unlink(auth: AuthContext, ref: string): Promise<void> {
    const link = await this.getLink(auth, ref);
    await this.deps.store.deleteLink(link._id);
    await this.deps.secrets.delete(link.namespace, linkSecretName(link._id));
  }

  private hostUrl(text: string, field: string): string {
    try {
      return normaliseHostUrl(text, this.deps.policy);
    } catch (err) {
      throw refused(err, field);
    }
  }
}

function refused(err: unknown, field: string): Error {
  if (err instanceof HostUrlError || err instanceof SubdirectoryError) {
    return new CodehostUrlNotAllowed(err.message, { fields: { field } });
  }
  return err as Error;
}

function notConnected(): CodehostNotConnected {
  return new CodehostNotConnected(
    'The account has no code host; connect one with PUT /api/v1/auth/codehost.',
  );
}

function linkNotFound(ref: string): CodehostLinkNotFound {
  return new CodehostLinkNotFound(`Agent ${ref} is not linked to a repository.`, {
    fields: { agent: ref },
  });
}
