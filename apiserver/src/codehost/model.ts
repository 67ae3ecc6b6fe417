/**
 * Code-host records as the API server keeps them in MongoDB. Tokens and
 * webhook secrets are not here: they live only in Kubernetes Secrets in the
 * account's namespace (see secret-store.ts).
 */
import type { Environment } from '../accounts/model.js';

/** The kinds of Git host: three with an API the status check asks, and any Git server over HTTPS. */
export const CODEHOST_PROVIDERS = ['github', 'gitlab', 'gitea', 'git'] as const;
/** One of {@link CODEHOST_PROVIDERS}. */
export type CodehostProvider = (typeof CODEHOST_PROVIDERS)[number];

/** An account's code host (one per account and environment). */
export interface CodehostAccountDoc {
  /** `<environment>:<account id>`. */
  _id: string;
  accountId: string;
  environment: Environment;
  provider: CodehostProvider;
  /** Base URL of the host, without a trailing slash (`https://github.com`). */
  url: string;
  /** The user name sent with the token in HTTP Basic authentication. */
  username: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An agent linked to a repository (one link per agent). */
export interface CodehostLinkDoc {
  /** The agent id. */
  _id: string;
  accountId: string;
  environment: Environment;
  namespace: string;
  /** Clone URL over HTTP(S), on the account's host. */
  repository: string;
  /** The repository as deliveries are matched to it (push-event.ts comparableRepository). */
  repositoryKey: string;
  branch: string;
  /** Directory of the repository that is deployed, or null for its root. */
  subdirectory: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A webhook delivery seen for an agent, kept a while to refuse replays. */
export interface CodehostDeliveryDoc {
  /** `<agent id>:<delivery id>`. */
  _id: string;
  agentId: string;
  receivedAt: Date;
}

/**
 * A commit a webhook deployed (or is deploying) for an agent's link, so the
 * same push replayed later, under any delivery id, deploys nothing.
 */
export interface CodehostCommitDoc {
  /** `<agent id>:<commit sha>`. */
  _id: string;
  agentId: string;
  commit: string;
  claimedAt: Date;
}

/** The commit a deployment made by a webhook was built from. */
export interface CodehostDeploymentDoc {
  /** The deployment id. */
  _id: string;
  agentId: string;
  accountId: string;
  environment: Environment;
  repository: string;
  branch: string;
  commit: string;
  deliveryId: string;
  createdAt: Date;
}
