/**
 * The rules of an agent's secrets: set (upsert), list, rotate and delete,
 * over the agent's Kubernetes Secret (see secret-store.ts), one beside each
 * region's copy of the Agent (owned by that copy, read by that region's
 * operator): a change is decided on the first copy's Secret, in region order,
 * and the others are made to hold the same. Every write then stamps the
 * Secret's new resourceVersion on each copy of the Agent
 * (`svc.dev/secrets-revision`), which wakes the operator: it rolls the
 * agent's running service so its processes see the new values within
 * seconds. Runs read the values current when they start.
 */
import type { CustomObjectsApi } from '@kubernetes/client-node';
import { OBJECT_NAMES, type Agent } from '../../../crds/src/index.js';
import type { AgentRepository } from '../agents/agent-repository.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { AgentNotFound, SecretNotFound } from '../errors/catalogue.js';
import {
  checkTotalSize,
  checkValueSize,
  SecretClients,
  stampSecretsRevision,
  upsertSecret,
  type SecretInput,
} from './secret-writes.js';
import {
  agentSecretsHolder,
  type SecretStore,
  type SecretSet,
  type StoredSecret,
} from './secret-store.js';

export type { SecretInput } from './secret-writes.js';

/** One region's copy of an agent, with the clients of its API. */
interface RegionalCopy {
  agent: Agent;
  store: SecretStore;
  custom: CustomObjectsApi;
}

/** Every copy of an agent, at least one. */
type RegionalCopies = [RegionalCopy, ...RegionalCopy[]];

/** A secret of an agent, without its value. */
export interface AgentSecret extends StoredSecret {
  agentId: string;
}

/** The agent secret operations. */
export class SecretService {
  private readonly clients = new SecretClients();

  constructor(
    private readonly repository: Pick<AgentRepository, 'copies'>,
    private readonly agents: Pick<AgentService, 'resolve'>,
  ) {}

  /** Every region's copy of the agent the caller names, the first in region order first. */
  private async copiesOf(auth: AuthContext, ref: string): Promise<RegionalCopies> {
    const agent = await this.agents.resolve(auth, ref);
    const copies = await this.repository.copies(auth.tenant.namespace, agent.metadata.name ?? '');
    const [first, ...others] = copies.map((copy) => ({
      agent: copy.object,
      ...this.clients.of(copy.api.kc),
    }));
    if (!first) throw new AgentNotFound(`No agent ${ref}.`, { fields: { agent: ref } });
    return [first, ...others];
  }

  /** The agent's secrets, by key; 404 AGENT_NOT_FOUND for an agent the caller cannot see. */
  async list(auth: AuthContext, ref: string): Promise<AgentSecret[]> {
    const [first] = await this.copiesOf(auth, ref);
    const id = first.agent.metadata.name ?? '';
    const secrets = await first.store.list(auth.tenant.namespace, OBJECT_NAMES.agentSecrets(id));
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
    const copies = await this.copiesOf(auth, ref);
    const { result, agentId } = await this.write(copies, (set) =>
      upsertSecret(set, input, auth.plan, 'agent'),
    );
    return {
      secret: { ...result.secret, agentId },
      created: result.created,
    };
  }

  /** Replaces the value of an existing secret; 404 SECRET_NOT_FOUND when there is none. */
  async rotate(auth: AuthContext, ref: string, key: string, value: string): Promise<AgentSecret> {
    checkValueSize(value);
    const copies = await this.copiesOf(auth, ref);
    const { result, agentId } = await this.write(copies, (set) => {
      const existing = set.get(key);
      if (!existing) throw notFound(key);
      const { key: _key, ...metadata } = existing;
      const rotated = { ...metadata, updated_at: new Date().toISOString() };
      set.set(key, value, rotated);
      checkTotalSize(set, 'agent');
      return { key, ...rotated };
    });
    return { ...result, agentId };
  }

  /** Deletes a secret; 404 SECRET_NOT_FOUND when there is none. */
  async delete(auth: AuthContext, ref: string, key: string): Promise<void> {
    const copies = await this.copiesOf(auth, ref);
    await this.write(copies, (set) => {
      if (!set.get(key)) throw notFound(key);
      set.remove(key);
    });
  }

  /**
   * Applies the change to the first copy's Secret, makes every other copy's
   * hold the same, then stamps each Secret's new revision on its Agent copy so
   * the service is rolled in every region.
   */
  private async write<T>(copies: RegionalCopies, change: (set: SecretSet) => T) {
    const [first, ...others] = copies;
    const written = await first.store.update(agentSecretsHolder(first.agent), change);
    const longKeys = written.set.longKeys();
    await stampSecretsRevision(first.custom, first.agent, written.revision, 'agent', longKeys);
    for (const copy of others) {
      const mirrored = await copy.store.update(agentSecretsHolder(copy.agent), (set) =>
        set.copyFrom(written.set),
      );
      await stampSecretsRevision(copy.custom, copy.agent, mirrored.revision, 'agent', longKeys);
    }
    return { result: written.result, agentId: first.agent.metadata.name ?? '' };
  }
}

function notFound(key: string): SecretNotFound {
  return new SecretNotFound(`The agent has no secret ${key}.`, { fields: { key } });
}
