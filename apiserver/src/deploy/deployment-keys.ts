/**
 * The lifecycle of the API keys minted for deployments (the SVC_API_KEY of an
 * agent's pods or processes). The API server is their one writer: it mints a
 * key with each accepted deployment (DeployService) and revokes it here,
 *
 * - when the agent is deleted (AgentService.delete calls revokeAgentKeys);
 * - once the deployment no longer serves: it was superseded, rolled back or
 *   failed, none of the runs started from its version is still in flight
 *   (a run uses its serving version's key), and its pods have had their
 *   shutdown grace;
 * - when the deployment no longer exists (an agent deleted behind the API's
 *   back, whose deployments the garbage collector removed).
 *
 * Revocation marks the key in MongoDB, so the key stops resolving at once on
 * every front door; deleting the Secret that holds it would not. Transitions
 * are seen through a watch of AgentDeployments; a periodic sweep over the
 * live keys catches what happened while no API server was watching.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  API_GROUP,
  API_VERSION,
  isFinalState,
  isRetiredState,
  PLURALS,
  type AgentDeployment,
} from '../../../crds/src/index.js';
import type { Logger } from '../../../common/logger.js';
import {
  customResourceSource,
  ResilientInformer,
  WorkQueue,
  type ReconcileResult,
} from '../../../common/kube/index.js';
import type { AccountService } from '../accounts/account-service.js';
import { tenantNamespace } from '../accounts/model.js';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { CustomResourceRepository } from '../store/custom-resources.js';

/**
 * How long a retired deployment's key keeps working after the deployment
 * stopped serving: its pods get SIGTERM and up to 120 s (the contract's grace
 * for custom containers) to finish what they were doing.
 */
export const KEY_SHUTDOWN_GRACE_MS = 130_000;

/** A live deployment key, as far as the verdict needs it. */
export interface DeploymentKeyRef {
  keyId: string;
  deploymentId: string | null;
}

/** What to do with an agent's live deployment keys. */
export interface KeyVerdicts {
  /** Keys to revoke now. */
  revoke: string[];
  /** Keys whose deployment is not in the view: revoke once a live read confirms it is gone. */
  missing: DeploymentKeyRef[];
  /** When a kept key's grace ends, if any (epoch ms). */
  recheckAt: number | null;
}

/**
 * Decides, from one agent's deployments and runs as last seen, which of its
 * live deployment keys nothing runs with any more. Pure.
 */
export function retiredDeploymentKeys(
  keys: readonly DeploymentKeyRef[],
  deployments: readonly AgentDeployment[],
  now: number,
  graceMs: number,
): KeyVerdicts {
  const byId = new Map(deployments.map((d) => [d.metadata.name ?? '', d]));
  const runningVersions = new Set(
    deployments
      .filter((d) => d.spec.ephemeral && !isFinalState(d.status?.state))
      .map((d) => d.spec.version),
  );
  const verdicts: KeyVerdicts = { revoke: [], missing: [], recheckAt: null };
  for (const key of keys) {
    const deployment = byId.get(key.deploymentId ?? '');
    if (!deployment) {
      verdicts.missing.push(key);
      continue;
    }
    if (deployment.metadata.deletionTimestamp) {
      verdicts.revoke.push(key.keyId);
      continue;
    }
    if (!isRetiredState(deployment.status?.state)) continue;
    if (!deployment.spec.ephemeral && runningVersions.has(deployment.spec.version)) continue;
    const finishedAt = Date.parse(deployment.status?.finishedAt ?? '') || 0;
    const graceEnds = finishedAt + graceMs;
    if (now < graceEnds) {
      verdicts.recheckAt = Math.min(verdicts.recheckAt ?? graceEnds, graceEnds);
      continue;
    }
    verdicts.revoke.push(key.keyId);
  }
  return verdicts;
}

/** Options of a {@link DeploymentKeyReaper}. */
export interface DeploymentKeyReaperOptions {
  /** See {@link KEY_SHUTDOWN_GRACE_MS}. */
  graceMs?: number;
  /** How often every live key is checked again. */
  sweepEveryMs?: number;
}

const agentKey = (namespace: string, agentId: string) => `${namespace}/${agentId}`;

/** Revokes deployment keys that nothing runs with any more (see the module comment). */
export class DeploymentKeyReaper {
  /** One watch per region API: a deployment's copies are where its agent is. */
  private readonly informers: ResilientInformer<AgentDeployment>[];
  private readonly queue: WorkQueue;
  /** Deployment names by `namespace/agentId`, from the informer. */
  private readonly byAgent = new Map<string, Set<string>>();
  private graceMs = KEY_SHUTDOWN_GRACE_MS;
  private sweepTimer: NodeJS.Timeout | undefined;

  /** Watches the AgentDeployments of `kc`, or of each region API's in `kc`. */
  constructor(
    kc: KubeConfig | readonly KubeConfig[],
    private readonly accounts: Pick<
      AccountService,
      'liveDeploymentKeys' | 'revokeKeys' | 'revokeAgentKeys'
    >,
    private readonly deployments: Pick<CustomResourceRepository<'AgentDeployment'>, 'get'>,
    private readonly log: Logger,
  ) {
    const apis = Array.isArray(kc) ? (kc as readonly KubeConfig[]) : [kc as KubeConfig];
    this.informers = apis.map(
      (api) =>
        new ResilientInformer<AgentDeployment>(
          api,
          customResourceSource<AgentDeployment>(api, {
            group: API_GROUP,
            version: API_VERSION,
            plural: PLURALS.AgentDeployment,
          }),
          { name: 'deployment-keys', logger: log },
        ),
    );
    this.queue = new WorkQueue({ name: 'deployment-keys', logger: log });
    const seen = (d: AgentDeployment, present: boolean) => {
      const key = agentKey(d.metadata.namespace ?? '', d.spec.agentId);
      const names = this.byAgent.get(key) ?? new Set<string>();
      if (present) names.add(d.metadata.name ?? '');
      // Gone only once no region has a copy left.
      else if (!this.seen(d.metadata.namespace ?? '', d.metadata.name ?? ''))
        names.delete(d.metadata.name ?? '');
      if (names.size > 0) this.byAgent.set(key, names);
      else this.byAgent.delete(key);
      // Only an ending (or a disappearance) can retire a key.
      const state = d.status?.state ?? 'queued';
      if (!present || d.metadata.deletionTimestamp || isFinalState(state)) {
        this.queue.add(key);
      }
    };
    for (const informer of this.informers) {
      informer.on('add', (d) => seen(d, true));
      informer.on('update', (d) => seen(d, true));
      informer.on('delete', (d) => seen(d, false));
    }
  }

  /**
   * The deployment as last seen: its first copy in region order that is not
   * being deleted (a region change deletes the copies in a region it leaves while
   * the others serve on), else its first copy.
   */
  private seen(namespace: string, name: string): AgentDeployment | undefined {
    let deleting: AgentDeployment | undefined;
    for (const informer of this.informers) {
      const found = informer.get(namespace, name);
      if (found && !found.metadata.deletionTimestamp) return found;
      deleting ??= found;
    }
    return deleting;
  }

  /** Starts watching; once the first list is in, checks every agent with live keys. */
  async start(options: DeploymentKeyReaperOptions = {}): Promise<void> {
    this.graceMs = options.graceMs ?? KEY_SHUTDOWN_GRACE_MS;
    for (const informer of this.informers) informer.start();
    await Promise.all(this.informers.map((i) => i.synced));
    this.queue.start((key) => this.reconcile(key), { concurrency: 2 });
    await this.sweep();
    this.sweepTimer = setInterval(
      () => {
        this.sweep().catch((err: unknown) => this.log.warn('deployment key sweep failed', { err }));
      },
      options.sweepEveryMs ?? 10 * 60_000,
    );
    this.sweepTimer.unref();
  }

  /** Stops watching and sweeping. */
  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.queue.stop();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Queues every agent that has live deployment keys. */
  async sweep(): Promise<void> {
    const keys = await this.accounts.liveDeploymentKeys();
    for (const key of keys) {
      if (key.agentId)
        this.queue.add(agentKey(tenantNamespace(key.accountId, key.environment), key.agentId));
    }
  }

  /**
   * Checks the keys of one agent now; resolves once a check that began after the call has
   * ended (what a test waits on to see that a key is kept, instead of a sleep).
   */
  checkNow(namespace: string, agentId: string): Promise<void> {
    return this.queue.runNow(agentKey(namespace, agentId));
  }

  /** Revokes every key of a deleted agent (503 when MongoDB cannot be reached). */
  async revokeAgentKeys(accountId: string, agentId: string): Promise<void> {
    try {
      await this.accounts.revokeAgentKeys(accountId, agentId);
    } catch (cause) {
      throw new ServiceUnavailable("The agent's keys could not be revoked; retry.", { cause });
    }
  }

  private async reconcile(key: string): Promise<ReconcileResult> {
    const [namespace = '', agentId = ''] = key.split('/');
    const keys = (await this.accounts.liveDeploymentKeys(agentId)).filter(
      (k) => tenantNamespace(k.accountId, k.environment) === namespace,
    );
    if (keys.length === 0) return;
    const deployments = [...(this.byAgent.get(key) ?? [])]
      .map((name) => this.seen(namespace, name))
      .filter((d): d is AgentDeployment => d !== undefined);
    const now = Date.now();
    const verdicts = retiredDeploymentKeys(keys, deployments, now, this.graceMs);
    const revoke = [...verdicts.revoke];
    let recheckAt = verdicts.recheckAt;
    for (const key of verdicts.missing) {
      // The watch may not have delivered a deployment created a moment ago: ask the API.
      if (!key.deploymentId || !(await this.deployments.get(namespace, key.deploymentId)))
        revoke.push(key.keyId);
      else recheckAt = Math.min(recheckAt ?? now + 5000, now + 5000);
    }
    const revoked = await this.accounts.revokeKeys(revoke);
    if (revoked > 0) {
      this.log.info('deployment keys revoked', { namespace, agent: agentId, keys: revoked });
    }
    return recheckAt === null ? undefined : { requeueAfter: Math.max(0, recheckAt - now) };
  }
}
