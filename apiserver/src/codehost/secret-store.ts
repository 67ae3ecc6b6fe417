/**
 * Where code-host credentials live: Kubernetes Secrets in the account's
 * namespace, never MongoDB, a response or a log line. The account's token is
 * `svc-codehost`; each agent link's webhook secret is
 * `svc-codehost-link-<agent id>`, labelled with the agent and deleted with
 * the link. (It is not owned by the Agent: an agent has a copy in each region
 * of its placement, each with its own uid, and these Secrets live in the home
 * region's API only.) Neither is handed to agents (the drivers inject only an agent's own
 * secrets). Kubernetes errors are replaced by ones that carry only their
 * status, so no value rides along in a cause.
 */
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { isKubeConflict, isKubeNotFound, kubeStatus } from '../../../common/kube/errors.js';
import { LABELS } from '../../../crds/src/index.js';
import { ServiceUnavailable } from '../errors/catalogue.js';

/** The value of `svc.dev/component` on code-host Secrets. */
export const CODEHOST_COMPONENT = 'codehost';

/** The Secret holding an account's code-host token. */
export const TOKEN_SECRET = 'svc-codehost';

/** The Secret holding the webhook secret of an agent's link. */
export function linkSecretName(agentId: string): string {
  return `svc-codehost-link-${agentId}`;
}

/** Reads and writes the code-host Secrets. */
export class CodehostSecrets {
  private readonly core: CoreV1Api;

  constructor(
    kc: KubeConfig,
    private readonly namespaces: { ensureNamespace(namespace: string): Promise<void> },
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
  }

  /** Stores the account's token, replacing any before it. */
  async writeToken(namespace: string, token: string): Promise<void> {
    await this.namespaces.ensureNamespace(namespace);
    await this.put(namespace, TOKEN_SECRET, { token }, {});
  }

  /** The account's token, or null when none is stored. */
  async readToken(namespace: string): Promise<string | null> {
    return this.read(namespace, TOKEN_SECRET, 'token');
  }

  /** Stores the webhook secret of the link of agent `agentId`. */
  async writeWebhookSecret(namespace: string, agentId: string, secret: string): Promise<void> {
    await this.namespaces.ensureNamespace(namespace);
    await this.put(
      namespace,
      linkSecretName(agentId),
      { webhook_secret: secret },
      { [LABELS.agentId]: agentId },
    );
  }

  /** The webhook secret of an agent's link, or null. */
  async readWebhookSecret(namespace: string, agentId: string): Promise<string | null> {
    return this.read(namespace, linkSecretName(agentId), 'webhook_secret');
  }

  /** Deletes a Secret; a missing one is fine. */
  async delete(namespace: string, name: string): Promise<void> {
    try {
      await this.core.deleteNamespacedSecret({ namespace, name });
    } catch (err) {
      if (!isKubeNotFound(err)) unavailable(err);
    }
  }

  private async read(namespace: string, name: string, key: string): Promise<string | null> {
    let secret: V1Secret;
    try {
      secret = await this.core.readNamespacedSecret({ namespace, name });
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      unavailable(err);
    }
    const value = secret.data?.[key];
    return value === undefined ? null : Buffer.from(value, 'base64').toString('utf8');
  }

  private async put(
    namespace: string,
    name: string,
    values: Record<string, string>,
    labels: Record<string, string>,
  ): Promise<void> {
    const body: V1Secret = {
      metadata: { name, namespace, labels: { ...labels, [LABELS.component]: CODEHOST_COMPONENT } },
      type: 'Opaque',
      stringData: values,
    };
    try {
      await this.core.createNamespacedSecret({ namespace, body });
      return;
    } catch (err) {
      if (!isKubeConflict(err)) unavailable(err);
    }
    try {
      await this.core.replaceNamespacedSecret({ namespace, name, body });
    } catch (err) {
      unavailable(err);
    }
  }
}

function unavailable(err: unknown): never {
  const status = kubeStatus(err);
  throw new ServiceUnavailable(
    `The cluster API ${status === undefined ? 'is unreachable' : `answered ${status}`}; retry in a few seconds.`,
  );
}
