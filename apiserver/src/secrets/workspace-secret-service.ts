/**
 * The rules of a workspace's secrets: set (upsert), list and delete, over the
 * workspace's Kubernetes Secret `svc-ws-secrets-<workspace id>` (owned by the
 * Workspace, so deleting it deletes them) in the home region's API, with the
 * same key, size and plan rules as an agent's own. Every write stamps the
 * Secret's new resourceVersion on every copy of every agent in the workspace
 * (`svc.dev/secrets-revision`), so the operator rolls their services.
 */
import { randomUUID } from 'node:crypto';
import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { isKubeNotFound } from '../../../common/kube/errors.js';
import {
  ANNOTATIONS,
  API_GROUP,
  API_VERSION,
  LABELS,
  PLURALS,
  workspaceSecretsName,
  type Agent,
  type Workspace,
} from '../../../crds/src/index.js';
import type { AgentRepository } from '../agents/agent-repository.js';
import type { AuthContext } from '../auth/authenticate.js';
import { PlanLimitExceeded, SecretNotFound, SecretValueTooLarge } from '../errors/catalogue.js';
import { asUnavailable } from '../store/kube-errors.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { MAX_TOTAL_VALUE_BYTES, MAX_VALUE_BYTES, SECRETS_PER_AGENT } from './secret-rules.js';
import type { SecretInput } from './secret-service.js';
import {
  SecretStore,
  type SecretHolder,
  type SecretSet,
  type StoredSecret,
} from './secret-store.js';

/** The value of `svc.dev/component` on a workspace's secrets. */
export const WORKSPACE_SECRETS_COMPONENT = 'workspace-secrets';

/** A secret of a workspace, without its value. */
export interface WorkspaceSecret extends StoredSecret {
  workspaceName: string;
  userId: string;
}

/** The holder of a workspace's secrets. */
export function workspaceSecretsHolder(workspace: Workspace): SecretHolder {
  return {
    namespace: workspace.metadata.namespace ?? '',
    secretName: workspaceSecretsName(workspace.metadata.name ?? ''),
    owner: workspace,
    labels: { [LABELS.component]: WORKSPACE_SECRETS_COMPONENT },
  };
}

/** The workspace secret operations. */
export class WorkspaceSecretService {
  private readonly store: SecretStore;
  private readonly customs = new Map<KubeConfig, CustomObjectsApi>();

  constructor(
    kc: KubeConfig,
    private readonly workspaces: Pick<WorkspaceService, 'resolve' | 'agents'>,
    private readonly agentCopies: Pick<AgentRepository, 'copies'>,
  ) {
    this.store = new SecretStore(kc.makeApiClient(CoreV1Api));
  }

  /** The workspace's secrets, by key; 404 WORKSPACE_NOT_FOUND for one the caller cannot see. */
  async list(auth: AuthContext, ref: string): Promise<WorkspaceSecret[]> {
    const workspace = await this.workspaces.resolve(auth, ref);
    const holder = workspaceSecretsHolder(workspace);
    const secrets = await this.store.list(holder.namespace, holder.secretName);
    return secrets.map((secret) => withWorkspace(secret, workspace));
  }

  /**
   * Sets a secret, creating it or replacing its value; `created` tells which.
   * 413 SECRET_VALUE_TOO_LARGE past the size caps, 400 PLAN_LIMIT_EXCEEDED
   * past the plan's number of secrets per workspace.
   */
  async put(
    auth: AuthContext,
    ref: string,
    input: SecretInput,
  ): Promise<{ secret: WorkspaceSecret; created: boolean }> {
    checkValueSize(input.value);
    const workspace = await this.workspaces.resolve(auth, ref);
    const tier = auth.plan.tier;
    const cap = SECRETS_PER_AGENT[tier];
    const result = await this.write(auth, workspace, (set) => {
      const existing = set.get(input.key);
      if (!existing && set.keys().length >= cap) {
        throw new PlanLimitExceeded(
          `The ${tier} plan allows ${cap} secrets per workspace; delete one first.`,
          { fields: { field: 'secrets', allowed: cap, tier } },
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
    return { secret: withWorkspace(result.secret, workspace), created: result.created };
  }

  /** Deletes a secret; 404 SECRET_NOT_FOUND when there is none. */
  async delete(auth: AuthContext, ref: string, key: string): Promise<void> {
    const workspace = await this.workspaces.resolve(auth, ref);
    await this.write(auth, workspace, (set) => {
      if (!set.get(key)) {
        throw new SecretNotFound(`The workspace has no secret ${key}.`, { fields: { key } });
      }
      set.remove(key);
    });
  }

  /** Applies the change, then stamps the new revision on every agent of the workspace. */
  private async write<T>(
    auth: AuthContext,
    workspace: Workspace,
    change: (set: SecretSet) => T,
  ): Promise<T> {
    const written = await this.store.update(workspaceSecretsHolder(workspace), change);
    const members = await this.workspaces.agents(auth, workspace.spec.name);
    await Promise.all(members.map((agent) => this.stampAgent(agent, written.revision)));
    return written.result;
  }

  /** Stamps `revision` on every region's copy of `agent`. */
  private async stampAgent(agent: Agent, revision: string): Promise<void> {
    const copies = await this.agentCopies.copies(
      agent.metadata.namespace ?? '',
      agent.metadata.name ?? '',
    );
    for (const copy of copies) {
      let custom = this.customs.get(copy.api.kc);
      if (!custom) {
        custom = copy.api.kc.makeApiClient(CustomObjectsApi);
        this.customs.set(copy.api.kc, custom);
      }
      try {
        await custom.patchNamespacedCustomObject(
          {
            group: API_GROUP,
            version: API_VERSION,
            namespace: copy.object.metadata.namespace ?? '',
            plural: PLURALS.Agent,
            name: copy.object.metadata.name ?? '',
            body: { metadata: { annotations: { [ANNOTATIONS.secretsRevision]: revision } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (err) {
        // Deleted meanwhile: nothing to roll.
        if (!isKubeNotFound(err)) asUnavailable(err);
      }
    }
  }
}

function withWorkspace(secret: StoredSecret, workspace: Workspace): WorkspaceSecret {
  return { ...secret, workspaceName: workspace.spec.name, userId: workspace.spec.userId };
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
      `A workspace's secret values may hold at most ${MAX_TOTAL_VALUE_BYTES} bytes together; delete or shorten some first.`,
      { fields: { field: 'secrets', max_bytes: MAX_TOTAL_VALUE_BYTES } },
    );
  }
}
