/**
 * Moves one agent between regions for a region change: each step is
 * idempotent (it looks at what each region's API holds before it writes), so
 * a runner that resumes an operation repeats it without doubling anything.
 *
 * - {@link AgentMover.place}: a copy of the agent in every region it is to be
 *   in: the Agent, its secrets, its deployment records (finished versions and
 *   runs as records, `svc.dev/imported-state` keeping that region's operator
 *   off them until their status is written), and the versions still live
 *   (the active one, one being rolled out) as fresh copies that region's
 *   operator builds from the same stored archive, each with its key's Secret.
 * - {@link AgentMover.readiness}: whether each new region's operator serves
 *   the version the old regions serve (or a newer one).
 * - {@link AgentMover.drain}: the copies outside the regions kept are marked
 *   draining (the edge sends requests to a kept copy), then deleted with their
 *   deployments and Secrets; the kept copies record the new placement.
 *
 * Copies live per Kubernetes API: regions that share one API (a name list)
 * share one copy, so moving between them only relabels it.
 */
import { CoreV1Api, type V1Secret } from '@kubernetes/client-node';
import { isKubeConflict, isKubeNotFound } from '../../../common/kube/errors.js';
import {
  ANNOTATIONS,
  LABELS,
  OBJECT_NAMES,
  controllerRef,
  isRetiredState,
  type Agent,
  type AgentDeployment,
} from '../../../crds/src/index.js';
import type { RegionApi, RegionApis } from '../regions/region-apis.js';
import { PLACEMENT_ANNOTATION, placementOf } from '../regions/placement.js';
import { agentSecretsHolder, SecretStore } from '../secrets/secret-store.js';
import { CustomResourceRepository } from '../store/custom-resources.js';
import { asUnavailable } from '../store/kube-errors.js';
import { OperationFailure } from './model.js';

/** Creates a tenant namespace in the given regions (the agent repository does). */
export interface NamespaceMaker {
  ensureNamespace(namespace: string, regions?: readonly string[]): Promise<void>;
}

/** The clients of one region API. */
interface ApiClients {
  api: RegionApi;
  agents: CustomResourceRepository<'Agent'>;
  deployments: CustomResourceRepository<'AgentDeployment'>;
  core: CoreV1Api;
  secrets: SecretStore;
}

/** One API's copy of an agent. */
interface Copy {
  clients: ApiClients;
  agent: Agent;
}

/** What {@link AgentMover.readiness} found in the regions being added. */
export interface Readiness {
  /** Regions whose operator serves the agent. */
  ready: string[];
  /** Regions still building or starting it. */
  waiting: string[];
}

/** Places, checks and drains the copies of agents across the regions' APIs. */
export class AgentMover {
  private readonly clients: ApiClients[];

  constructor(
    private readonly apis: RegionApis,
    private readonly namespaces: NamespaceMaker,
    private readonly sleep: (ms: number) => Promise<void>,
    /** How long the edge is given to notice a copy being drained. */
    private readonly edgeGraceMs = 2_000,
  ) {
    this.clients = apis.apis.map((api) => ({
      api,
      agents: new CustomResourceRepository(api.kc, 'Agent', 'agent'),
      deployments: new CustomResourceRepository(api.kc, 'AgentDeployment', 'deployment'),
      core: api.kc.makeApiClient(CoreV1Api),
      secrets: new SecretStore(api.kc.makeApiClient(CoreV1Api)),
    }));
  }

  /** The regions the agent is placed in, from any copy; null when it has none left. */
  async placement(namespace: string, agentId: string): Promise<string[] | null> {
    const [first] = await this.copies(namespace, agentId);
    return first ? placementOf(first.agent, [this.apis.home]) : null;
  }

  /**
   * Gives the agent a copy in every region of `regions` that lacks one, each
   * with its secrets and deployments; every copy then records its placement
   * as the regions it had plus `regions`. False when the agent has no copy
   * left (deleted meanwhile).
   */
  async place(namespace: string, agentId: string, regions: readonly string[]): Promise<boolean> {
    const copies = await this.copies(namespace, agentId);
    const source = copies.find((c) => !c.agent.metadata.annotations?.[ANNOTATIONS.draining]);
    if (!source) return copies.length > 0;
    const placement = [...new Set([...placementOf(source.agent, [this.apis.home]), ...regions])];
    await this.namespaces.ensureNamespace(namespace, regions);
    for (const target of this.apis.targets(regions)) {
      if (target.api === source.clients.api) continue;
      const clients = this.clientsOf(target.api);
      const existing = copies.find((c) => c.clients === clients)?.agent;
      const agent = existing ?? (await this.createAgent(clients, source.agent, target.region));
      await this.copySecrets(source, clients, agent);
      await this.copyDeployments(source, clients, agent, target.region, placement);
    }
    for (const copy of await this.copies(namespace, agentId)) {
      await this.record(copy, placement, null);
    }
    return true;
  }

  /**
   * Whether the operators of `added` (regions the agent is being placed in)
   * serve the version the regions of `from` serve: a newer version active
   * counts too; for an agent that is paused or archived, having built it.
   * Throws {@link OperationFailure} when it failed in one of them.
   */
  async readiness(
    namespace: string,
    agentId: string,
    from: readonly string[],
    added: readonly string[],
  ): Promise<Readiness> {
    const fromApis = new Set(this.apis.targets(from).map((t) => t.api));
    const sourceVersions = (
      await Promise.all(
        [...fromApis].map((api) =>
          this.clientsOf(api).deployments.list(namespace, `${LABELS.agentId}=${agentId}`),
        ),
      )
    ).flat();
    const serving = Math.max(
      0,
      ...sourceVersions
        .filter((d) => !d.spec.ephemeral && d.status?.state === 'active')
        .map((d) => d.spec.version),
    );
    const out: Readiness = { ready: [], waiting: [] };
    for (const target of this.apis.targets(added)) {
      if (fromApis.has(target.api)) {
        out.ready.push(target.region);
        continue;
      }
      const clients = this.clientsOf(target.api);
      const agent = await clients.agents.get(namespace, agentId);
      const versions = agent
        ? await clients.deployments.list(namespace, `${LABELS.agentId}=${agentId}`)
        : [];
      const state = versionState(agent, versions, serving);
      if (state.failed) {
        throw new OperationFailure(
          `Agent ${agent?.spec.name ?? agentId}: version ${serving} failed in region ${target.region}: ${state.failed}`,
        );
      }
      (state.ready ? out.ready : out.waiting).push(target.region);
    }
    return out;
  }

  /**
   * Deletes the agent's copies outside `keep` (marked draining first, so the
   * edge moves to a kept copy), with their deployments and Secrets, and
   * records `keep` as the placement of the copies left. Refuses to delete
   * anything while no kept region has a copy.
   */
  async drain(namespace: string, agentId: string, keep: readonly string[]): Promise<void> {
    const targets = this.apis.targets(keep);
    const keptApis = new Set(targets.map((t) => t.api));
    const copies = await this.copies(namespace, agentId);
    const kept = copies.filter((c) => keptApis.has(c.clients.api));
    const leaving = copies.filter((c) => !keptApis.has(c.clients.api));
    if (leaving.length > 0 && kept.length === 0) {
      throw new Error(`agent ${agentId} has no copy in ${keep.join(', ')} yet; not draining`);
    }
    let marked = false;
    for (const copy of leaving) {
      if (copy.agent.metadata.annotations?.[ANNOTATIONS.draining]) continue;
      await copy.clients.agents.update(namespace, agentId, (a) => {
        a.metadata.annotations = { ...a.metadata.annotations, [ANNOTATIONS.draining]: 'true' };
      });
      marked = true;
    }
    if (marked) await this.sleep(this.edgeGraceMs);
    for (const copy of leaving) await this.remove(copy.clients, namespace, agentId);
    for (const copy of kept) {
      const region = targets.find((t) => t.api === copy.clients.api)!.region;
      await this.record(copy, keep, region);
    }
  }

  /** Every API's copy of the agent, in region order. */
  private async copies(namespace: string, agentId: string): Promise<Copy[]> {
    const found = await Promise.all(this.clients.map((c) => c.agents.get(namespace, agentId)));
    return this.clients.flatMap((clients, i) => (found[i] ? [{ clients, agent: found[i] }] : []));
  }

  private clientsOf(api: RegionApi): ApiClients {
    return this.clients.find((c) => c.api === api)!;
  }

  /** Writes `placement` (and the region label, when given) on a copy that says otherwise. */
  private async record(copy: Copy, placement: readonly string[], region: string | null) {
    const wanted = placement.join(',');
    const { metadata } = copy.agent;
    const labelled = region === null || metadata.labels?.[LABELS.region] === region;
    if (metadata.annotations?.[PLACEMENT_ANNOTATION] === wanted && labelled) return;
    const namespace = metadata.namespace ?? '';
    const agentId = metadata.name ?? '';
    const stamp = (o: Agent | AgentDeployment) => {
      o.metadata.annotations = { ...o.metadata.annotations, [PLACEMENT_ANNOTATION]: wanted };
      if (region !== null) o.metadata.labels = { ...o.metadata.labels, [LABELS.region]: region };
    };
    // The deployments carry the placement their Deployment records report.
    const selector = `${LABELS.agentId}=${agentId}`;
    for (const d of await copy.clients.deployments.list(namespace, selector)) {
      await copy.clients.deployments.update(namespace, d.metadata.name ?? '', stamp);
    }
    await copy.clients.agents.update(namespace, agentId, stamp);
  }

  private async createAgent(clients: ApiClients, source: Agent, region: string): Promise<Agent> {
    const annotations = { ...source.metadata.annotations };
    delete annotations[ANNOTATIONS.draining];
    const copy: Agent = {
      apiVersion: source.apiVersion,
      kind: source.kind,
      metadata: {
        name: source.metadata.name,
        namespace: source.metadata.namespace,
        labels: { ...source.metadata.labels, [LABELS.region]: region },
        annotations,
      },
      spec: structuredClone(source.spec),
    };
    try {
      return await clients.agents.create(copy);
    } catch (err) {
      if (!isKubeConflict(err)) throw err;
      const existing = await clients.agents.get(
        copy.metadata.namespace ?? '',
        copy.metadata.name ?? '',
      );
      if (!existing) throw err;
      return existing;
    }
  }

  /** Makes the copy's Secret of agent secrets hold what the source's holds. */
  private async copySecrets(source: Copy, clients: ApiClients, agent: Agent): Promise<void> {
    const namespace = agent.metadata.namespace ?? '';
    const name = OBJECT_NAMES.agentSecrets(agent.metadata.name ?? '');
    const set = await source.clients.secrets.load(namespace, name);
    if (set.keys().length === 0) return;
    const current = await clients.secrets.load(namespace, name);
    if (JSON.stringify(current.data) === JSON.stringify(set.data)) return;
    await clients.secrets.update(agentSecretsHolder(agent), (s) => s.copyFrom(set));
  }

  /**
   * Copies the agent's deployments into `clients`' API: finished ones as
   * records with their status, live versions fresh (with their key's Secret)
   * for that region's operator to build; runs still in flight stay where they run.
   */
  private async copyDeployments(
    source: Copy,
    clients: ApiClients,
    agent: Agent,
    region: string,
    placement: readonly string[],
  ): Promise<void> {
    const namespace = agent.metadata.namespace ?? '';
    const selector = `${LABELS.agentId}=${agent.metadata.name ?? ''}`;
    const [all, present] = await Promise.all([
      source.clients.deployments.list(namespace, selector),
      clients.deployments.list(namespace, selector),
    ]);
    const here = new Map(present.map((d) => [d.metadata.name ?? '', d]));
    const ordered = [...all].sort((a, b) => a.spec.version - b.spec.version);
    for (const d of ordered) {
      const state = d.status?.state;
      // A retired deployment's record never changes: copied as a record, never rebuilt.
      const finished = isRetiredState(state);
      if (d.spec.ephemeral && !finished) continue;
      const name = d.metadata.name ?? '';
      let copy = here.get(name);
      copy ??= await this.createDeployment(
        clients,
        d,
        agent,
        region,
        placement,
        finished ? (state ?? null) : null,
      );
      if (finished && copy.status?.state !== state) {
        await clients.deployments.updateStatus(namespace, name, (c) => {
          c.status = structuredClone(d.status);
        });
      }
      if (!finished) await this.copyKeySecret(source, clients, copy);
    }
  }

  private async createDeployment(
    clients: ApiClients,
    d: AgentDeployment,
    agent: Agent,
    region: string,
    placement: readonly string[],
    finishedState: string | null,
  ): Promise<AgentDeployment> {
    const annotations: Record<string, string> = {
      ...d.metadata.annotations,
      [PLACEMENT_ANNOTATION]: placement.join(','),
    };
    if (finishedState) annotations[ANNOTATIONS.importedState] = finishedState;
    const copy: AgentDeployment = {
      apiVersion: d.apiVersion,
      kind: d.kind,
      metadata: {
        name: d.metadata.name,
        namespace: d.metadata.namespace,
        labels: { ...d.metadata.labels, [LABELS.region]: region },
        annotations,
        ownerReferences: [controllerRef(agent)],
      },
      spec: structuredClone(d.spec),
    };
    try {
      return await clients.deployments.create(copy);
    } catch (err) {
      if (!isKubeConflict(err)) throw err;
      const existing = await clients.deployments.get(
        copy.metadata.namespace ?? '',
        copy.metadata.name ?? '',
      );
      if (!existing) throw err;
      return existing;
    }
  }

  /** Puts the deployment's key Secret beside its copy, owned by it (the same key as the source's). */
  private async copyKeySecret(source: Copy, clients: ApiClients, copy: AgentDeployment) {
    const namespace = copy.metadata.namespace ?? '';
    const name = OBJECT_NAMES.deploymentKeySecret(copy.metadata.name ?? '');
    const from = await readSecret(source.clients.core, namespace, name);
    if (!from || (await readSecret(clients.core, namespace, name))) return;
    try {
      await clients.core.createNamespacedSecret({
        namespace,
        body: {
          metadata: { name, labels: from.metadata?.labels, ownerReferences: [controllerRef(copy)] },
          type: from.type,
          data: from.data,
        },
      });
    } catch (err) {
      if (!isKubeConflict(err)) asUnavailable(err);
    }
  }

  /** Deletes one API's copy of the agent, its deployments and its Secrets. */
  private async remove(clients: ApiClients, namespace: string, agentId: string): Promise<void> {
    const selector = `${LABELS.agentId}=${agentId}`;
    // The Agent first: its operator stops what runs for it at once.
    await clients.agents.delete(namespace, agentId);
    for (const d of await clients.deployments.list(namespace, selector)) {
      await clients.deployments.delete(namespace, d.metadata.name ?? '');
    }
    try {
      await clients.core.deleteCollectionNamespacedSecret({ namespace, labelSelector: selector });
    } catch (err) {
      if (!isKubeNotFound(err)) asUnavailable(err);
    }
  }
}

/**
 * Where a region's copy stands with the version `serving` elsewhere (0: none
 * deployed there): ready, still on its way, or failed with a message.
 */
function versionState(
  agent: Agent | null,
  versions: readonly AgentDeployment[],
  serving: number,
): { ready: boolean; failed?: string } {
  if (!agent) return { ready: false };
  if (serving === 0) return { ready: true };
  const live = versions.filter((d) => !d.spec.ephemeral);
  if (live.some((d) => d.spec.version >= serving && d.status?.state === 'active')) {
    return { ready: true };
  }
  const copy = live.find((d) => d.spec.version === serving);
  if (copy?.status?.state === 'failed') {
    return { ready: false, failed: copy.status.errorMessage ?? 'the build failed' };
  }
  // Not running: nothing serves it anywhere, so a finished build is all there is to wait for.
  if (agent.spec.desiredState !== 'running') {
    return { ready: ['deploying', 'active'].includes(copy?.status?.state ?? '') };
  }
  return { ready: false };
}

async function readSecret(core: CoreV1Api, namespace: string, name: string) {
  try {
    return await core.readNamespacedSecret({ namespace, name });
  } catch (err) {
    if (isKubeNotFound(err)) return null;
    return asUnavailable(err) as V1Secret;
  }
}
