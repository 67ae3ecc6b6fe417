/**
 * Builds the code-host services from the API server's connections, so the
 * control plane's assembly adds one line for them.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Db } from 'mongodb';
import type { Tier } from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import type { AccountService } from '../accounts/account-service.js';
import type { Plan } from '../accounts/plans.js';
import type { AgentService } from '../agents/agent-service.js';
import type { MongoWindowStore } from '../rate-limit/mongo-window-store.js';
import { CodehostService } from './codehost-service.js';
import { CodehostStore } from './codehost-store.js';
import { CodehostSecrets } from './secret-store.js';
import { WebhookService, type WebhookServiceDeps } from './webhook-service.js';

/** Settings of the code-host feature; every one has a default. */
export interface CodehostConfig {
  /** Accept `http://` hosts on loopback addresses, and hosts on loopback at all (tests, a Git server on this machine); false by default. */
  allowLoopbackHttp?: boolean;
  /** Accept hosts on private, link-local or reserved networks (a Git server inside the installation's network); false by default. */
  allowPrivateHosts?: boolean;
  /** Public base URL of the control plane for webhook URLs; by default the origin the request came to. */
  publicApiUrl?: string;
  /** Webhook deliveries per minute per agent (default 120). */
  webhookPerMinute?: number;
  /** Largest webhook body (default 1 MiB). */
  webhookMaxBodyBytes?: number;
}

/** What the routes are bound to. */
export interface CodehostDeps {
  service: CodehostService;
  webhooks: WebhookService;
  store: CodehostStore;
  /** The rate-limit windows the webhook routes count deliveries in. */
  windows: MongoWindowStore;
  publicApiUrl?: string;
  webhookPerMinute: number;
  webhookMaxBodyBytes: number;
}

/** What building needs. */
export interface CodehostInputs {
  db: Db;
  kc: KubeConfig;
  accounts: AccountService;
  plans: Record<Tier, Plan>;
  agents: Pick<AgentService, 'resolve'>;
  namespaces: { ensureNamespace(namespace: string): Promise<void> };
  deploy: WebhookServiceDeps['deploy'];
  windows: MongoWindowStore;
  log: Logger;
  config?: CodehostConfig;
}

/** Builds the code-host services. */
export function buildCodehost(inputs: CodehostInputs): CodehostDeps {
  const config = inputs.config ?? {};
  const store = CodehostStore.open(inputs.db);
  const secrets = new CodehostSecrets(inputs.kc, inputs.namespaces);
  const policy = {
    allowLoopbackHttp: config.allowLoopbackHttp ?? false,
    allowPrivateHosts: config.allowPrivateHosts ?? false,
  };
  return {
    store,
    service: new CodehostService({
      store,
      secrets,
      agents: inputs.agents,
      policy,
    }),
    webhooks: new WebhookService({
      store,
      secrets,
      accounts: inputs.accounts,
      plans: inputs.plans,
      deploy: inputs.deploy,
      log: inputs.log.child({ component: 'codehost' }),
      policy,
    }),
    windows: inputs.windows,
    publicApiUrl: config.publicApiUrl,
    webhookPerMinute: config.webhookPerMinute ?? 120,
    webhookMaxBodyBytes: config.webhookMaxBodyBytes ?? 1024 * 1024,
  };
}
