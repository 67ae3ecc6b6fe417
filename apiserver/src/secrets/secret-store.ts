/**
 * Where secrets live: one Kubernetes Secret per holder in the account's
 * namespace, owned by the holder so deleting it deletes them. An agent's is
 * `svc-secrets-<agent id>`, owned by the Agent (see {@link agentSecretsHolder});
 * a workspace's (`svc-ws-secrets-<workspace id>`, owned by the Workspace) fits
 * the same store, and pods list it before the agent's in `envFrom` so the
 * agent's own key wins. The Secret's `data` holds the values, one key each,
 * exactly as pods read them; one annotation holds the metadata the routes
 * return (id, description, timestamps) as JSON keyed by secret key, so value
 * and record change in one write (no MongoDB document, so no key with `.` or
 * `$` reaches FerretDB). Nothing here ever puts a value in a log line or an
 * error message: Kubernetes errors are replaced by ones that carry only their
 * status.
 */
import { createHash } from 'node:crypto';
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { kubeStatus, isKubeConflict, isKubeNotFound } from '../../../common/kube/errors.js';
import { controllerRef } from '../../../crds/src/owner-reference.js';
import {
  ANNOTATIONS,
  LABELS,
  OBJECT_NAMES,
  isDerivedDataKey,
  parseJsonAnnotation,
  secretDataKey,
  type Agent,
} from '../../../crds/src/index.js';
import type { OwnerLike } from '../../../crds/src/owner-reference.js';
import { ResourceBusy, ServiceUnavailable } from '../errors/catalogue.js';

/** The annotation holding the metadata of every secret of the Secret, as JSON keyed by secret key. */
export const SECRETS_METADATA_ANNOTATION = 'svc.dev/secrets-metadata';

/** The value of `svc.dev/component` on an agent's secrets. */
export const AGENT_SECRETS_COMPONENT = 'agent-secrets';

/** What the routes return about one secret (never its value). */
export interface SecretMetadata {
  id: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/** One stored secret, without its value. */
export interface StoredSecret extends SecretMetadata {
  key: string;
}

/**
 * The secrets of one agent while a change is applied to them: values as
 * base64 (never decoded here but to count their bytes) by data key, metadata
 * by secret key, and the secret key of each derived data key (a key longer
 * than a Secret's data keys may be, see secret-data-keys.ts).
 */
export class SecretSet {
  constructor(
    readonly data: Record<string, string>,
    readonly metadata: Record<string, SecretMetadata>,
    readonly envNames: Record<string, string> = {},
  ) {}

  /** The keys held, sorted. */
  keys(): string[] {
    return Object.keys(this.data)
      .map((dataKey) => (isDerivedDataKey(dataKey) ? this.envNames[dataKey] : dataKey))
      .filter((key): key is string => key !== undefined)
      .sort();
  }

  /** The keys stored under a derived data key, sorted. */
  longKeys(): string[] {
    return this.keys().filter((key) => secretDataKey(key) !== key);
  }

  /** The metadata of `key`, or undefined when it is not held. */
  get(key: string): StoredSecret | undefined {
    if (!(secretDataKey(key) in this.data)) return undefined;
    return { key, ...(this.metadata[key] ?? missingMetadata(key)) };
  }

  /** Sets the value and metadata of `key`. */
  set(key: string, value: string, metadata: SecretMetadata): void {
    const dataKey = secretDataKey(key);
    this.data[dataKey] = Buffer.from(value, 'utf8').toString('base64');
    if (dataKey !== key) this.envNames[dataKey] = key;
    this.metadata[key] = metadata;
  }

  /** Removes `key`. */
  remove(key: string): void {
    const dataKey = secretDataKey(key);
    delete this.data[dataKey];
    delete this.envNames[dataKey];
    delete this.metadata[key];
  }

  /** Makes this set hold exactly what `other` holds (a copy of the secrets for another region). */
  copyFrom(other: SecretSet): void {
    for (const key of this.keys()) this.remove(key);
    for (const map of [this.data, this.envNames]) for (const k of Object.keys(map)) delete map[k];
    Object.assign(this.data, other.data);
    Object.assign(this.metadata, other.metadata);
    Object.assign(this.envNames, other.envNames);
  }

  /** The bytes of every value together. */
  totalValueBytes(): number {
    return Object.values(this.data).reduce((n, b64) => n + Buffer.from(b64, 'base64').length, 0);
  }
}

/**
 * Metadata for a key set outside the routes (by hand, with kubectl): an id
 * derived from the key, so it stays the same across reads and is kept when
 * the key is next written.
 */
function missingMetadata(key: string): SecretMetadata {
  const h = createHash('sha256').update(key).digest('hex');
  const epoch = new Date(0).toISOString();
  return {
    id: `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`,
    description: null,
    created_at: epoch,
    updated_at: epoch,
  };
}

const WRITE_ATTEMPTS = 5;

/** Rethrows a Kubernetes failure without its message (it could quote what was sent). */
function sanitized(err: unknown): never {
  if (err instanceof ResourceBusy || err instanceof ServiceUnavailable) throw err;
  const status = kubeStatus(err);
  if (status === undefined || status >= 500) {
    throw new ServiceUnavailable(
      'The cluster API is unreachable; nothing was written. Retry in a few seconds.',
    );
  }
  throw new Error(`The cluster API answered ${status} on a Secret of secrets.`);
}

function parseMetadata(secret: V1Secret): Record<string, SecretMetadata> {
  return parseJsonAnnotation(secret.metadata?.annotations?.[SECRETS_METADATA_ANNOTATION], {});
}

/** The set a Secret holds (empty for none), with copies of its maps to change. */
function setOf(secret: V1Secret | null): SecretSet {
  return new SecretSet({ ...(secret?.data ?? {}) }, secret ? parseMetadata(secret) : {}, {
    ...parseJsonAnnotation(secret?.metadata?.annotations?.[ANNOTATIONS.secretEnvNames], {}),
  });
}

/**
 * What holds a set of secrets: its Secret's namespace, name and labels, and
 * the owner it goes with (null for a copy in a region where the owner has no
 * object of its own: whoever deletes the owner deletes that copy too).
 */
export interface SecretHolder {
  namespace: string;
  secretName: string;
  owner: OwnerLike | null;
  labels: Record<string, string>;
}

/** The holder of an agent's own secrets. */
export function agentSecretsHolder(agent: Agent): SecretHolder {
  const agentId = agent.metadata.name ?? '';
  return {
    namespace: agent.metadata.namespace ?? '',
    secretName: OBJECT_NAMES.agentSecrets(agentId),
    owner: agent,
    labels: { [LABELS.agentId]: agentId, [LABELS.component]: AGENT_SECRETS_COMPONENT },
  };
}

/** Reads and writes the Secret holding each holder's secrets. */
export class SecretStore {
  constructor(private readonly core: CoreV1Api) {}

  private async read(namespace: string, name: string): Promise<V1Secret | null> {
    try {
      return await this.core.readNamespacedSecret({ namespace, name });
    } catch (err) {
      if (isKubeNotFound(err)) return null;
      return sanitized(err);
    }
  }

  /** The secrets of the Secret `name` as a set (empty when there is none), to copy elsewhere. */
  async load(namespace: string, name: string): Promise<SecretSet> {
    return setOf(await this.read(namespace, name));
  }

  /** The secrets of the Secret `name`, by key, without values. */
  async list(namespace: string, name: string): Promise<StoredSecret[]> {
    const set = setOf(await this.read(namespace, name));
    return set.keys().map((key) => set.get(key) as StoredSecret);
  }

  /**
   * Applies `change` to the holder's secrets and writes them (creating the
   * Secret on first use), re-reading and retrying when another write came
   * first. `change` returns what the caller wants back, or throws to write
   * nothing. Resolves with that, the set as written, and the Secret's new
   * resourceVersion.
   */
  async update<T>(
    holder: SecretHolder,
    change: (secrets: SecretSet) => T,
  ): Promise<{ result: T; set: SecretSet; revision: string }> {
    const { namespace, secretName: name } = holder;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current = await this.read(namespace, name);
      const set = setOf(current);
      const result = change(set);
      const body: V1Secret = {
        metadata: {
          name,
          namespace,
          labels: holder.labels,
          annotations: {
            ...current?.metadata?.annotations,
            [SECRETS_METADATA_ANNOTATION]: JSON.stringify(set.metadata),
            [ANNOTATIONS.secretEnvNames]: JSON.stringify(set.envNames),
          },
          ownerReferences: holder.owner ? [controllerRef(holder.owner)] : undefined,
          resourceVersion: current?.metadata?.resourceVersion,
        },
        type: 'Opaque',
        data: set.data,
      };
      try {
        const written = current
          ? await this.core.replaceNamespacedSecret({ namespace, name, body })
          : await this.core.createNamespacedSecret({ namespace, body });
        return { result, set, revision: written.metadata?.resourceVersion ?? '' };
      } catch (err) {
        if (!isKubeConflict(err)) sanitized(err);
      }
    }
    throw new ResourceBusy(
      'The secrets are being changed by another request; retry in a few seconds.',
    );
  }
}
