/**
 * The changes an agent's and a workspace's secrets share: the size checks, an
 * upsert under the plan's cap, and stamping a Secret's new revision on an
 * Agent copy so its operator rolls the service. Nothing here puts a value in
 * an error message.
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
  PLURALS,
  type Agent,
} from '../../../crds/src/index.js';
import type { Plan } from '../accounts/plans.js';
import { PlanLimitExceeded, SecretValueTooLarge } from '../errors/catalogue.js';
import { asUnavailable } from '../store/kube-errors.js';
import { MAX_TOTAL_VALUE_BYTES, MAX_VALUE_BYTES } from './secret-rules.js';
import { SecretStore, type SecretSet, type StoredSecret } from './secret-store.js';

/** A secret as set by a client. */
export interface SecretInput {
  key: string;
  value: string;
  /** Omitted: kept on replace, none on create; null clears it. */
  description?: string | null;
}

/** Who holds a set of secrets, as error messages name it. */
export type SecretHolderKind = 'agent' | 'workspace';

/** 413 SECRET_VALUE_TOO_LARGE for a value over the per-value cap. */
export function checkValueSize(value: string): void {
  if (Buffer.byteLength(value, 'utf8') > MAX_VALUE_BYTES) {
    throw new SecretValueTooLarge(`A secret value may hold at most ${MAX_VALUE_BYTES} bytes.`, {
      fields: { field: 'value', max_bytes: MAX_VALUE_BYTES },
    });
  }
}

/** 413 SECRET_VALUE_TOO_LARGE when the holder's values together pass the cap. */
export function checkTotalSize(set: SecretSet, holder: SecretHolderKind): void {
  if (set.totalValueBytes() > MAX_TOTAL_VALUE_BYTES) {
    throw new SecretValueTooLarge(
      `${holder === 'agent' ? 'An agent' : 'A workspace'}'s secret values may hold at most ${MAX_TOTAL_VALUE_BYTES} bytes together; delete or shorten some first.`,
      { fields: { field: 'secrets', max_bytes: MAX_TOTAL_VALUE_BYTES } },
    );
  }
}

/**
 * Sets `input` in `set`, creating the key or replacing its value and keeping
 * its id and creation time; 400 PLAN_LIMIT_EXCEEDED for a new key past the
 * plan's secrets per holder, 413 past the size caps.
 */
export function upsertSecret(
  set: SecretSet,
  input: SecretInput,
  plan: Pick<Plan, 'tier' | 'secretsPerHolder'>,
  holder: SecretHolderKind,
): { secret: StoredSecret; created: boolean } {
  const existing = set.get(input.key);
  const cap = plan.secretsPerHolder;
  if (!existing && set.keys().length >= cap) {
    throw new PlanLimitExceeded(
      `The ${plan.tier} plan allows ${cap} secrets per ${holder}; delete one first.`,
      { fields: { field: 'secrets', allowed: cap, tier: plan.tier } },
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
  checkTotalSize(set, holder);
  return { secret: { key: input.key, ...metadata }, created: !existing };
}

/** Which of an agent's secret sources a stamp speaks for. */
export type SecretSource = 'agent' | 'workspace';

/**
 * Stamps `revision` on an Agent copy (`svc.dev/secrets-revision`), which wakes
 * its region's operator to roll the service, with the keys of `source` stored
 * under derived data keys (its pods name those one by one). A copy deleted
 * meanwhile has nothing to roll.
 */
export async function stampSecretsRevision(
  custom: CustomObjectsApi,
  agent: Agent,
  revision: string,
  source: SecretSource,
  longKeys: string[],
): Promise<void> {
  const annotation =
    source === 'agent' ? ANNOTATIONS.longSecretKeys : ANNOTATIONS.workspaceLongSecretKeys;
  try {
    await custom.patchNamespacedCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        namespace: agent.metadata.namespace ?? '',
        plural: PLURALS.Agent,
        name: agent.metadata.name ?? '',
        body: {
          metadata: {
            annotations: {
              [ANNOTATIONS.secretsRevision]: revision,
              // null removes it (a merge patch): no long key, nothing on the Agent.
              [annotation]: longKeys.length > 0 ? JSON.stringify(longKeys) : null,
            },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  } catch (err) {
    if (!isKubeNotFound(err)) asUnavailable(err);
  }
}

/** The secret store and custom-resource client of each region's API, made once per API. */
export class SecretClients {
  private readonly byKc = new Map<KubeConfig, { store: SecretStore; custom: CustomObjectsApi }>();

  /** The clients of the API `kc` reaches. */
  of(kc: KubeConfig): { store: SecretStore; custom: CustomObjectsApi } {
    let clients = this.byKc.get(kc);
    if (!clients) {
      clients = {
        store: new SecretStore(kc.makeApiClient(CoreV1Api)),
        custom: kc.makeApiClient(CustomObjectsApi),
      };
      this.byKc.set(kc, clients);
    }
    return clients;
  }
}
