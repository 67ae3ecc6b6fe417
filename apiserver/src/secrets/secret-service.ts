/**
 * The rules of an agent's secrets: set (upsert), list, rotate and delete,
 * over the agent's Kubernetes Secret (see secret-store.ts). Every write then
 * stamps the Secret's new resourceVersion on the Agent
 * (`svc.dev/secrets-revision`), which wakes the operator: it rolls the
 * agent's running service so its processes see the new values within
 * seconds. Runs read the values current when they start.
 */
import { randomUUID } from 'node:crypto';
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  CoreV1Api,
} from '@kubernetes/client-node';
import { isKubeNotFound } from '../../../common/kube/errors.js';
import {
  ANNOTATIONS,
  OBJECT_NAMES,
  API_GROUP,
  API_VERSION,
  PLURALS,
  type Agent,
} from '../../../crds/src/index.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { PlanLimitExceeded, SecretNotFound, SecretValueTooLarge } from '../errors/catalogue.js';
import { asUnavailable } from '../store/kube-errors.js';
import { MAX_TOTAL_VALUE_BYTES, MAX_VALUE_BYTES, SECRETS_PER_AGENT } from './secret-rules.js';
import {
  agentSecretsHolder,
  SecretStore,
  type SecretSet,
  type StoredSecret,
} from './secret-store.js';

/** A secret as set by a client. */
export interface SecretInput {
  key: string;
  value: string;
  /** Omitted: kept on replace, none on create; null clears it. */
  description?: string | null;
}

/** A secret of an agent, without its value. */
export interface AgentSecret extends StoredSecret {
  agentId: string;
}

/** The agent secret operations. */
export class SecretService {
  private readonly store: SecretStore;
  private readonly custom: CustomObjectsApi;

  constructor(
    kc: KubeConfig,
    private readonly agents: Pick<AgentService, 'resolve'>,
  ) {
    this.store = new SecretStore(kc.makeApiClient(CoreV1Api));
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  /** The agent's secrets, by key; 404 AGENT_NOT_FOUND for an agent the caller cannot see. */
  async list(auth: AuthContext, ref: string): Promise<AgentSecret[]> {
    const agent = await this.agents.resolve(auth, ref);
    const id = agent.metadata.name ?? '';
    const secrets = await this.store.list(auth.tenant.namespace, OBJECT_NAMES.agentSecrets(id));
    return secrets.map((secret) => ({ ...secret, agentId: id }));
  }

  /**
   * Sets a secret, creating it or replacing its value; `created` tells which.
   * 413 SECRET_VALUE_TOO_LARGE past the size caps, 400 PLAN_LIMIT_EXCEEDED
   * past the plan's number of secrets per agent.
   */
  async put(
    auth: AuthContext,
    ref: string,
    input: SecretInput,
  ): Promise<{ secret: AgentSecret; created: boolean }> {
    checkValueSize(input.value);
    const agent = await this.agents.resolve(auth, ref);
    const tier = auth.plan.tier;
    const { result } = await this.write(agent, (set) => {
      const existing = set.get(input.key);
      if (!existing && set.keys().length >= SECRETS_PER_AGENT[tier]) {
        throw new PlanLimitExceeded(
          `The ${tier} plan allows ${SECRETS_PER_AGENT[tier]} secrets per agent; delete one first.`,
          { fields: { field: 'secrets', allowed: SECRETS_PER_AGENT[tier], tier } },
        );
      }
      const now = new Date().toISOString();
      const metadata = {
        id: existing?.id ?? randomUUID(),
        description:
          input.description === undefined ? (existing?.description ?? null) : input.description,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      set.set(input.key, input.value, metadata);
      checkTotalSize(set);
      return { secret: { key: input.key, ...metadata }, created: !existing };
    });
    return {
      secret: { ...result.secret, agentId: agent.metadata.name ?? '' },
      created: result.created,
    };
  }

  /** Replaces the value of an existing secret; 404 SECRET_NOT_FOUND when there is none. */
  async rotate(auth: AuthContext, ref: string, key: string, value: string): Promise<AgentSecret> {
    checkValueSize(value);
    const agent = await this.agents.resolve(auth, ref);
    const { result } = await this.write(agent, (set) => {
      const existing = set.get(key);
      if (!existing) throw notFound(key);
      const { key: _key, ...metadata } = existing;
      const rotated = { ...metadata, updated_at: new Date().toISOString() };
      set.set(key, value, rotated);
      checkTotalSize(set);
      return { key, ...rotated };
    });
    return { ...result, agentId: agent.metadata.name ?? '' };
  }

  /** Deletes a secret; 404 SECRET_NOT_FOUND when there is none. */
  async delete(auth: AuthContext, ref: string, key: string): Promise<void> {
    const agent = await this.agents.resolve(auth, ref);
    await this.write(agent, (set) => {
      if (!set.get(key)) throw notFound(key);
      set.remove(key);
    });
  }

  /** Writes the change, then stamps the new revision on the Agent so its service is rolled. */
  private async write<T>(agent: Agent, change: (set: SecretSet) => T) {
    const written = await this.store.update(agentSecretsHolder(agent), change);
    await this.markRevision(agent, written.revision);
    return written;
  }

  private async markRevision(agent: Agent, revision: string): Promise<void> {
    try {
      await this.custom.patchNamespacedCustomObject(
        {
          group: API_GROUP,
          version: API_VERSION,
          namespace: agent.metadata.namespace ?? '',
          plural: PLURALS.Agent,
          name: agent.metadata.name ?? '',
          body: { metadata: { annotations: { [ANNOTATIONS.secretsRevision]: revision } } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      // Deleted meanwhile: its Secret goes with it.
      if (!isKubeNotFound(err)) asUnavailable(err);
    }
  }
}

function notFound(key: string): SecretNotFound {
  return new SecretNotFound(`The agent has no secret ${key}.`, { fields: { key } });
}

function checkValueSize(value: string): void {
  if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) {
    throw new SecretValueTooLarge(`A secret value may hold at most ${MAX_VALUE_BYTES} bytes.`, {
      fields: { field: 'value', max_bytes: MAX_VALUE_BYTES },
    });
  }
}

function checkTotalSize(set: SecretSet): void {
  if (set.totalValueBytes() > MAX_TOTAL_VALUE_BYTES) {
    throw new SecretValueTooLarge(
      `An agent's secret values may hold at most ${MAX_TOTAL_VALUE_BYTES} bytes together; delete or shorten some first.`,
      { fields: { field: 'secrets', max_bytes: MAX_TOTAL_VALUE_BYTES } },
    );
  }
}
