/**
 * The rules of the agent resource: create, read, list, update, delete and the
 * lifecycle actions, over Agent custom resources in the tenant's namespace and
 * name reservations in MongoDB. Every path that writes to both undoes its first
 * write when the second fails, so a failed dependency leaves nothing behind.
 */
import { randomUUID } from 'node:crypto';
import {
  ANNOTATIONS,
  API_GROUP_VERSION,
  LABELS,
  type Agent,
  type AgentMachine,
  type Tier,
} from '../../../crds/src/index.js';
import type { Plan } from '../accounts/plans.js';
import { keyAgentScope, type AuthContext } from '../auth/authenticate.js';
import type { AgentCreateBody, AgentUpdateBody } from '../control-plane/routes/agents/schema.js';
import {
  AgentKeyForbidden,
  AgentNotDeployed,
  AgentNotFound,
  AgentStateConflict,
  RuntimeImmutable,
  ValidationFailed,
} from '../errors/catalogue.js';
import type { EffectiveConfig } from '../deploy/config-file.js';
import type { AgentRepository } from './agent-repository.js';
import type { NameReservations } from './name-reservations.js';
import { drawAddressLabel, isUuid } from './names.js';
import { checkPlanCaps } from './plan-caps.js';
import { placementOf, setPlacement } from '../regions/placement.js';

/** Revokes the API keys minted for an agent's deployments. */
export interface AgentKeyRevoker {
  revokeAgentKeys(accountId: string, agentId: string): Promise<void>;
}

/** What the service is built from. */
export interface AgentServiceDeps {
  repository: AgentRepository;
  names: NameReservations;
  plans: Record<Tier, Plan>;
  regions: readonly string[];
  keys: AgentKeyRevoker;
  /** The regions of the tenant's workspace `name`, or null when there is no such workspace. */
  workspaceRegions?: (namespace: string, name: string) => Promise<string[] | null>;
  /**
   * The keys of a workspace's secrets too long for a Secret's data key, which
   * an agent joining it carries (ANNOTATIONS.workspaceLongSecretKeys) so its pods get them.
   */
  workspaceLongSecretKeys?: (namespace: string, name: string) => Promise<string[]>;
}

/** A machine as AgentStatusDetail reports it. */
export interface MachineView {
  id: string;
  region: string;
  state: string;
  source: 'live' | 'cached';
  health: string | null;
  last_check: string | null;
  instance_id: string | null;
}

/** Lifecycle action labels returned with 202. */
export type ActionLabel = 'paused' | 'starting' | 'archiving' | 'restoring' | 'deleting';

/** The agent operations. */
export class AgentService {
  constructor(private readonly deps: AgentServiceDeps) {}

  /** Creates an agent (not deployed; the agent-count quota is checked at deploy). */
  async create(auth: AuthContext, input: AgentCreateBody): Promise<Agent> {
    const { tenant, account } = auth;
    if (keyAgentScope(auth)) {
      throw new AgentKeyForbidden("An agent's own key cannot create agents; use an account key.");
    }
    const agentType = input.agent_type ?? 'service';
    const settings = {
      tier: input.tier ?? 'free',
      runtime: input.runtime ?? 'python3.11',
      memoryMb: input.memory_mb ?? 256,
      idleTimeoutMinutes: input.idle_timeout_minutes ?? 5,
      keepAlive: input.keep_alive ?? false,
      regions: input.regions ?? [account.homeRegion],
    };
    // An agent in a workspace runs where the workspace is; otherwise in its own regions.
    const workspaceRegions = input.workspace_name
      ? await this.deps.workspaceRegions?.(tenant.namespace, input.workspace_name)
      : null;
    if (workspaceRegions) settings.regions = workspaceRegions;
    checkPlanCaps(settings, account.tier, this.deps.plans, this.deps.regions);

    const id = randomUUID();
    await this.deps.names.reserve(tenant, input.name, id);
    const longKeys = await this.workspaceLongKeys(tenant.namespace, input.workspace_name ?? null);
    const agent: Agent = {
      apiVersion: API_GROUP_VERSION,
      kind: 'Agent',
      metadata: {
        name: id,
        namespace: tenant.namespace,
        labels: { [LABELS.agentName]: input.name, [LABELS.accountId]: account._id },
        ...(longKeys ? { annotations: longKeys } : {}),
      },
      spec: {
        name: input.name,
        userId: account._id,
        description: input.description ?? null,
        agentType,
        tier: settings.tier,
        runtime: settings.runtime,
        memoryMb: settings.memoryMb,
        idleTimeoutMinutes: settings.idleTimeoutMinutes,
        keepAlive: settings.keepAlive,
        databaseCollection: input.database_collection ?? null,
        modelName: input.model_name ?? null,
        entrypoint: input.entrypoint ?? null,
        spawnEnabled: input.spawn_enabled ?? false,
        allowedWorkers: [...new Set(input.allowed_workers ?? [])],
        parentAgentId: null,
        workspaceName: input.workspace_name ?? null,
        regions: [...new Set(settings.regions)],
        schedule: null,
        schedulePaused: false,
        desiredState: 'running',
        targetVersion: null,
        addressLabel: null,
        updatedAt: new Date().toISOString(),
      },
    };
    setPlacement(agent, agent.spec.regions);
    try {
      return await this.deps.repository.create(agent);
    } catch (err) {
      await this.deps.names.release(tenant, input.name, id).catch(() => undefined);
      throw err;
    }
  }

  /**
   * The annotation listing the long secret keys of the workspace `name` (see
   * {@link AgentServiceDeps.workspaceLongSecretKeys}), or null for none.
   */
  private async workspaceLongKeys(
    namespace: string,
    name: string | null,
  ): Promise<Record<string, string> | null> {
    if (!name || !this.deps.workspaceLongSecretKeys) return null;
    const keys = await this.deps.workspaceLongSecretKeys(namespace, name);
    return keys.length > 0 ? { [ANNOTATIONS.workspaceLongSecretKeys]: JSON.stringify(keys) } : null;
  }

  /**
   * The agent named by a UUID or a name; 404 AGENT_NOT_FOUND otherwise, also
   * for another tenant's, and for any agent but its own with an agent's key.
   */
  async resolve(auth: AuthContext, ref: string): Promise<Agent> {
    return this.scoped(auth, ref, await this.resolveWorker(auth, ref));
  }

  /**
   * Like {@link resolve}, for a caller that only reads the agent (a GET's answer): the
   * cache's own object when it holds it, uncopied, so it must not be changed.
   */
  async view(auth: AuthContext, ref: string): Promise<Readonly<Agent>> {
    const agent = await this.find(auth, ref, (namespace, id) =>
      this.deps.repository.peek(namespace, id),
    );
    return this.scoped(auth, ref, agent);
  }

  /**
   * Any agent of the tenant, whatever the key: only for the child of a spawn,
   * which the parent's spawn_enabled and allowed_workers decide.
   */
  async resolveWorker(auth: AuthContext, ref: string): Promise<Agent> {
    return (await this.find(auth, ref, (namespace, id) =>
      this.deps.repository.get(namespace, id),
    )) as Agent;
  }

  /** 404 AGENT_NOT_FOUND for any agent but its own with an agent's key. */
  private scoped<A extends Readonly<Agent>>(auth: AuthContext, ref: string, agent: A): A {
    const scope = keyAgentScope(auth);
    if (scope && agent.metadata.name !== scope) {
      throw new AgentNotFound(`No agent ${ref}.`, { fields: { agent: ref } });
    }
    return agent;
  }

  /** The tenant's agent named by a UUID or a name, read with `read`; 404 when there is none. */
  private async find(
    auth: AuthContext,
    ref: string,
    read: (namespace: string, id: string) => Promise<Readonly<Agent> | null>,
  ): Promise<Readonly<Agent>> {
    const { namespace } = auth.tenant;
    const id = isUuid(ref)
      ? ref.toLowerCase()
      : (this.deps.repository.idFromCache(namespace, ref) ??
        (await this.deps.names.lookup(auth.tenant, ref)));
    const agent = id ? await read(namespace, id) : null;
    if (!agent || agent.metadata.deletionTimestamp) {
      throw new AgentNotFound(`No agent ${ref}.`, { fields: { agent: ref } });
    }
    return agent;
  }

  /** Every agent of the tenant (only its own with an agent's key), by name (a stable order for offset paging). */
  async list(auth: AuthContext): Promise<Agent[]> {
    const scope = keyAgentScope(auth);
    const agents = await this.deps.repository.list(auth.tenant.namespace);
    return agents
      .filter((a) => !a.metadata.deletionTimestamp)
      .filter((a) => !scope || a.metadata.name === scope)
      .sort((a, b) => (a.spec.name < b.spec.name ? -1 : a.spec.name > b.spec.name ? 1 : 0));
  }

  /** How many of the tenant's agents are deployed, not counting `except`. */
  async countDeployed(auth: AuthContext, except: string): Promise<number> {
    const all = await this.deps.repository.list(auth.tenant.namespace);
    return all.filter((a) => a.status?.deployed && a.metadata.name !== except).length;
  }

  /**
   * Points the agent at a newly accepted version: the settings it was deployed
   * with become the agent's, a service gets its address label on its first
   * deploy, and the agent is to run.
   */
  async adoptVersion(
    auth: AuthContext,
    agentId: string,
    config: EffectiveConfig,
    version: number,
  ): Promise<void> {
    await this.deps.repository.update(auth.tenant.namespace, agentId, (a) => {
      a.spec.runtime = config.runtime;
      a.spec.agentType = config.agentType;
      a.spec.entrypoint = config.entrypoint;
      a.spec.memoryMb = config.memoryMb;
      a.spec.regions = config.regions;
      a.spec.keepAlive = config.keepAlive;
      a.spec.idleTimeoutMinutes = config.idleTimeoutMinutes;
      a.spec.buildSecrets = config.buildSecrets;
      if (config.schedule === null && a.spec.schedule) a.spec.schedulePaused = false;
      a.spec.schedule = config.schedule;
      a.spec.targetVersion = version;
      a.spec.addressLabel ??= config.agentType === 'service' ? drawAddressLabel(a.spec.name) : null;
      a.spec.desiredState = 'running';
    });
  }

  /**
   * Pauses or resumes the agent's schedule; a resume counts from `at` (the next
   * run is computed from that instant, never backfilled). Null when the agent is gone.
   */
  async writeSchedulePaused(
    auth: AuthContext,
    agentId: string,
    paused: boolean,
    at: Date,
  ): Promise<Agent | null> {
    return this.deps.repository.update(auth.tenant.namespace, agentId, (a) => {
      a.spec.schedulePaused = paused;
      if (!paused) a.spec.scheduleResumedAt = at.toISOString();
    });
  }

  /** Applies an AgentUpdate; a rename keeps the id and the address. */
  async update(auth: AuthContext, ref: string, input: AgentUpdateBody): Promise<Agent> {
    const current = await this.resolve(auth, ref);
    const id = current.metadata.name ?? '';
    if (input.runtime && input.runtime !== current.spec.runtime) {
      throw new RuntimeImmutable(
        `The runtime of ${current.spec.name} is ${current.spec.runtime}; it cannot change to ${input.runtime}.`,
        { fields: { field: 'runtime', current: current.spec.runtime } },
      );
    }
    const merged = {
      tier: input.tier ?? current.spec.tier,
      runtime: current.spec.runtime,
      memoryMb: input.memory_mb ?? current.spec.memoryMb,
      idleTimeoutMinutes: input.idle_timeout_minutes ?? current.spec.idleTimeoutMinutes,
      keepAlive: input.keep_alive ?? current.spec.keepAlive,
      regions: current.spec.regions,
    };
    const agentType = input.agent_type ?? current.spec.agentType;
    if (merged.keepAlive && agentType === 'job') {
      throw new ValidationFailed('Request validation failed', {
        fields: {
          violations: [
            {
              loc: ['body', 'keep_alive'],
              msg: 'keep_alive is not allowed on a job agent',
              type: 'keep_alive_job',
            },
          ],
        },
      });
    }
    checkPlanCaps(merged, auth.account.tier, this.deps.plans, this.deps.regions);

    const rename = input.name && input.name !== current.spec.name ? input.name : null;
    if (rename) await this.deps.names.reserve(auth.tenant, rename, id);
    const joins =
      input.workspace_name !== undefined &&
      input.workspace_name !== (current.spec.workspaceName ?? null);
    const longKeys = joins
      ? await this.workspaceLongKeys(auth.tenant.namespace, input.workspace_name ?? null)
      : null;
    let updated: Agent | null;
    try {
      updated = await this.deps.repository.update(auth.tenant.namespace, id, (agent) => {
        if (joins) {
          const annotations = { ...agent.metadata.annotations };
          delete annotations[ANNOTATIONS.workspaceLongSecretKeys];
          agent.metadata.annotations = { ...annotations, ...longKeys };
        }
        const spec = agent.spec;
        if (rename) spec.name = rename;
        if (input.description !== undefined) spec.description = input.description;
        if (input.database_collection !== undefined)
          spec.databaseCollection = input.database_collection;
        if (input.model_name !== undefined) spec.modelName = input.model_name;
        if (input.entrypoint !== undefined) spec.entrypoint = input.entrypoint;
        if (input.workspace_name !== undefined) spec.workspaceName = input.workspace_name;
        if (input.spawn_enabled != null) spec.spawnEnabled = input.spawn_enabled;
        if (input.allowed_workers != null)
          spec.allowedWorkers = [...new Set(input.allowed_workers)];
        spec.agentType = agentType;
        spec.tier = merged.tier;
        spec.memoryMb = merged.memoryMb;
        spec.idleTimeoutMinutes = merged.idleTimeoutMinutes;
        spec.keepAlive = merged.keepAlive;
      });
    } catch (err) {
      if (rename) await this.deps.names.release(auth.tenant, rename, id).catch(() => undefined);
      throw err;
    }
    if (!updated) {
      if (rename) await this.deps.names.release(auth.tenant, rename, id).catch(() => undefined);
      throw new AgentNotFound(`No agent ${ref}.`, { fields: { agent: ref } });
    }
    if (rename) await this.deps.names.release(auth.tenant, current.spec.name, id);
    return updated;
  }

  /**
   * Deletes the agent and frees its name; the operator cleans up what it ran.
   * Its deployments' keys are revoked first: were the deletion to fail, the
   * agent would be left without API access rather than its keys outliving it.
   */
  async delete(auth: AuthContext, ref: string): Promise<Agent> {
    const agent = await this.resolve(auth, ref);
    await this.deps.keys.revokeAgentKeys(auth.account._id, agent.metadata.name ?? '');
    await this.deps.repository.delete(auth.tenant.namespace, agent.metadata.name ?? '');
    await this.deps.names.release(auth.tenant, agent.spec.name, agent.metadata.name ?? '');
    return agent;
  }

  /** stop (paused), start, archive and restore: each records the desired state for the operator. */
  async act(
    auth: AuthContext,
    ref: string,
    action: 'stop' | 'start' | 'archive' | 'restore',
  ): Promise<[Agent, ActionLabel]> {
    const agent = await this.resolve(auth, ref);
    const deployed = agent.status?.deployed ?? false;
    const current = agent.status?.status ?? 'pending';
    const desired = agent.spec.desiredState;
    const conflict = (message: string) =>
      new AgentStateConflict(message, { fields: { current_state: current } });
    const notDeployed = () =>
      new AgentNotDeployed(`${agent.spec.name} is not deployed; deploy it first.`, {
        fields: { current_state: current },
      });

    let next: Agent['spec']['desiredState'];
    let label: ActionLabel;
    switch (action) {
      case 'stop':
        if (desired === 'archived')
          throw conflict(`${agent.spec.name} is archived; restore it first.`);
        if (!deployed) throw notDeployed();
        [next, label] = ['paused', 'paused'];
        break;
      case 'start':
        if (desired === 'archived')
          throw conflict(`${agent.spec.name} is archived; restore it instead.`);
        if (!deployed) throw notDeployed();
        [next, label] = ['running', 'starting'];
        break;
      case 'archive':
        if (desired === 'archived') throw conflict(`${agent.spec.name} is already archived.`);
        if (!deployed) throw notDeployed();
        [next, label] = ['archived', 'archiving'];
        break;
      case 'restore':
        if (desired !== 'archived' && current !== 'archived') {
          throw conflict(`${agent.spec.name} is not archived.`);
        }
        [next, label] = ['running', 'restoring'];
        break;
    }
    const updated = await this.deps.repository.update(
      auth.tenant.namespace,
      agent.metadata.name ?? '',
      (a) => {
        a.spec.desiredState = next;
      },
    );
    if (!updated) throw new AgentNotFound(`No agent ${ref}.`, { fields: { agent: ref } });
    return [updated, label];
  }

  /** The regions the agent is placed in (its copies' regions). */
  placement(agent: Agent): string[] {
    return placementOf(agent, [this.deps.repository.apis.home]);
  }

  /**
   * The agent's machines, read live from each region it is placed in, each
   * with that region; when that read fails, the last values the operator
   * stored, marked `cached`.
   */
  async machines(auth: AuthContext, agent: Agent): Promise<MachineView[]> {
    const id = agent.metadata.name ?? '';
    try {
      const pods = await this.deps.repository.listPods(
        auth.tenant.namespace,
        id,
        this.placement(agent),
      );
      const now = new Date().toISOString();
      return pods.map(({ region, pod }) => ({
        id: pod.metadata?.name ?? '',
        region,
        state: (pod.status?.phase ?? 'Unknown').toLowerCase(),
        source: 'live' as const,
        health: podHealth(pod.status?.conditions),
        last_check: now,
        instance_id: pod.metadata?.uid ?? null,
      }));
    } catch {
      return (agent.status?.machines ?? []).map((m: AgentMachine) => ({
        id: m.id,
        region: m.region,
        state: m.state,
        source: 'cached' as const,
        health: m.health ?? null,
        last_check: m.lastCheck ?? agent.status?.machinesObservedAt ?? null,
        instance_id: m.instanceId ?? null,
      }));
    }
  }
}

function podHealth(conditions: Array<{ type: string; status: string }> | undefined): string | null {
  const ready = conditions?.find((c) => c.type === 'Ready');
  if (!ready) return null;
  return ready.status === 'True' ? 'passing' : 'critical';
}
