/**
 * Reading deployments and cancelling one, on the API side (rolling back is
 * rollback.ts). Deployments live as `AgentDeployment` resources in the tenant's
 * namespace, so another account's deployment is simply not found.
 */
import type { Collection } from 'mongodb';
import { isFinalState, LABELS, type AgentDeployment } from '../../../crds/src/index.js';
import type { AgentService } from '../agents/agent-service.js';
import { keyAgentScope, type AuthContext } from '../auth/authenticate.js';
import { DeploymentNotCancellable, DeploymentNotFound } from '../errors/catalogue.js';
import type { RegionalRepository } from '../store/regional-resources.js';
import { placementOf } from '../regions/placement.js';
import { regionalStatus } from './deployment-regions.js';
import type { RunPayloadDoc } from '../store/database.js';
import type { ArchiveStore } from './archive-store.js';
import type { DeployService } from './deploy-service.js';
import { presentDeployment, type DeploymentRecord } from './deployment-presenter.js';

/** A page of a list. */
export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_offset: number | null;
}

/** Filters and paging of a deployment list. */
export interface DeploymentListOptions {
  limit?: number;
  offset?: number;
  state?: string;
  agentId?: string;
}

/** The deployment operations besides deploying and rolling back. */
export class DeploymentService {
  constructor(
    private readonly deps: {
      agents: AgentService;
      deploy: DeployService;
      archives: ArchiveStore;
      payloads: Collection<RunPayloadDoc>;
    },
  ) {}

  private get repo(): RegionalRepository<'AgentDeployment'> {
    return this.deps.deploy.deployments;
  }

  /**
   * The record of a resource, with whether its archive is still stored and,
   * when the regions have APIs of their own, what each region's operator
   * observed of its copy.
   */
  async present(d: AgentDeployment): Promise<DeploymentRecord> {
    const [archiveStored, regional] = await Promise.all([
      d.spec.archiveId ? this.deps.archives.exists(d.spec.archiveId) : false,
      this.regional(d),
    ]);
    return presentDeployment(d, { archiveStored, regional });
  }

  private async regional(d: AgentDeployment) {
    const { apis } = this.repo;
    // One API: the copy at hand is the only one, and its status already says it.
    if (apis.single) return undefined;
    const copies = await this.repo.copies(d.metadata.namespace ?? '', d.metadata.name ?? '');
    return regionalStatus(
      placementOf(d, [apis.home]),
      copies.map((c) => ({ region: c.region, state: c.object.status?.state })),
    );
  }

  /**
   * The deployment, or 404 DEPLOYMENT_NOT_FOUND. With an agent's key, only
   * the agent's own deployments and runs, and the runs it spawned.
   */
  async get(auth: AuthContext, id: string): Promise<AgentDeployment> {
    const found = /^[0-9a-f-]{36}$/i.test(id)
      ? await this.repo.get(auth.tenant.namespace, id.toLowerCase())
      : null;
    const scope = keyAgentScope(auth);
    const visible =
      found && (!scope || found.spec.agentId === scope || found.spec.spawnedByAgentId === scope);
    if (!visible)
      throw new DeploymentNotFound(`No deployment ${id}.`, { fields: { deployment_id: id } });
    return found;
  }

  /** Deployed versions (not runs), newest first, filtered and paged; only its agent's with an agent's key. */
  async list(auth: AuthContext, options: DeploymentListOptions): Promise<Page<DeploymentRecord>> {
    const scope = keyAgentScope(auth);
    const agentId = options.agentId ?? scope;
    const selector = agentId ? `${LABELS.agentId}=${agentId}` : undefined;
    const all = (await this.repo.list(auth.tenant.namespace, selector))
      .filter((d) => !scope || d.spec.agentId === scope)
      .filter((d) => !d.spec.ephemeral)
      .filter((d) => !options.state || (d.status?.state ?? 'queued') === options.state)
      .sort((a, b) => compareNewestFirst(a, b));
    const limit = options.limit ?? 20;
    const offset = options.offset ?? 0;
    const slice = all.slice(offset, offset + limit);
    const items = await Promise.all(slice.map((d) => this.present(d)));
    const next = offset + items.length;
    return {
      items,
      total: all.length,
      limit,
      offset,
      next_offset: next < all.length ? next : null,
    };
  }

  /** The deployment of `version` of the agent `ref`, or 404. */
  async byVersion(auth: AuthContext, ref: string, version: number): Promise<AgentDeployment> {
    const agent = await this.deps.agents.resolve(auth, ref);
    const [found] = await this.repo.list(
      auth.tenant.namespace,
      `${LABELS.agentId}=${agent.metadata.name},${LABELS.deploymentVersion}=${version}`,
    );
    if (!found || found.spec.ephemeral) {
      throw new DeploymentNotFound(`${agent.spec.name} has no version ${version}.`, {
        fields: { version },
      });
    }
    return found;
  }

  /** Asks the operator to stop a deployment that has not finished. */
  async cancel(
    auth: AuthContext,
    ref: string,
    version: number,
    reason: string | undefined,
  ): Promise<AgentDeployment> {
    const target = await this.byVersion(auth, ref, version);
    const state = target.status?.state ?? 'queued';
    if (isFinalState(state)) {
      throw new DeploymentNotCancellable(`Version ${version} already finished (${state}).`, {
        fields: { current_state: state },
      });
    }
    const updated = await this.repo.update(
      auth.tenant.namespace,
      target.metadata.name ?? '',
      (d) => {
        d.spec.cancellationRequested = true;
        d.spec.cancellationReason = reason ?? 'cancelled by the user';
      },
    );
    if (!updated) throw new DeploymentNotFound(`No deployment ${target.metadata.name}.`);
    return updated;
  }

  /** The input payload of a run (null for a deployment that is not a run, or a run without one). */
  async payload(
    auth: AuthContext,
    id: string,
  ): Promise<{ deployment_id: string; payload: Record<string, unknown> | null }> {
    const deployment = await this.get(auth, id);
    const deploymentId = deployment.metadata.name ?? '';
    // By key alone (the one lookup FerretDB answers without reading every payload), then
    // checked: a payload of another account is none of this caller's.
    const doc = await this.deps.payloads.findOne({ _id: deploymentId });
    const own = doc?.accountId === auth.account._id ? doc : null;
    return { deployment_id: deploymentId, payload: own?.payload ?? null };
  }
}

function compareNewestFirst(a: AgentDeployment, b: AgentDeployment): number {
  const byTime = String(b.metadata.creationTimestamp ?? '').localeCompare(
    String(a.metadata.creationTimestamp ?? ''),
  );
  return byTime || b.spec.version - a.spec.version;
}
