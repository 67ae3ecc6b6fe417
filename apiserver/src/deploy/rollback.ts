/**
 * The rollback command: a new version (the next one) built from an earlier one's
 * stored code and configuration. When it becomes active, the deployment it
 * replaces is marked rolled_back by the operator.
 */
import type { Agent, AgentDeployment } from '../../../crds/src/index.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { RollbackNotAllowed } from '../errors/catalogue.js';
import { checkAgentQuota } from './agent-quota.js';
import type { ArchiveStore } from './archive-store.js';
import type { EffectiveConfig } from './config-file.js';
import { canRollback } from './deployment-presenter.js';
import type { DeploymentRecords } from './deployment-records.js';
import type { DeploymentService } from './deployment-service.js';

/** The configuration `from` was deployed with, as a new version takes it. */
export function configOfVersion(from: AgentDeployment, agent: Agent): EffectiveConfig {
  const c = from.spec.config;
  return {
    runtime: c.runtime,
    agentType: c.agentType,
    entrypoint: c.entrypoint ?? null,
    memoryMb: c.memoryMb,
    regions: [...c.regions],
    schedule: c.schedule ?? null,
    keepAlive: c.keepAlive ?? false,
    idleTimeoutMinutes: c.idleTimeoutMinutes ?? agent.spec.idleTimeoutMinutes,
    buildSecrets: c.buildSecrets ?? false,
  };
}

/** What the rollback command is built from. */
export interface RollbackDeps {
  agents: AgentService;
  archives: ArchiveStore;
  /** Finds the version rolled back to. */
  deployments: Pick<DeploymentService, 'byVersion'>;
  /** Records the new version. */
  records: DeploymentRecords;
}

/** Rolls an agent back to one of its versions. */
export class RollbackCommand {
  constructor(private readonly deps: RollbackDeps) {}

  /**
   * Rolls back to `version` of the agent `ref`: 404 for an unknown agent or
   * version, 409 ROLLBACK_NOT_ALLOWED for the active version, one never built
   * or one whose code is no longer stored, 403 PLAN_LIMIT_EXCEEDED when the
   * agent holds no running app (archived) and the plan's agent quota is full.
   */
  async run(auth: AuthContext, ref: string, version: number): Promise<AgentDeployment> {
    const target = await this.deps.deployments.byVersion(auth, ref, version);
    const archiveStored = target.spec.archiveId
      ? await this.deps.archives.exists(target.spec.archiveId)
      : false;
    if (!canRollback(target, { archiveStored })) {
      const reason =
        target.status?.state === 'active'
          ? 'it is the active version'
          : !target.status?.builtAt
            ? 'it was never built'
            : 'its code is no longer stored';
      throw new RollbackNotAllowed(`Version ${version} cannot be rolled back to: ${reason}.`, {
        fields: { reason },
      });
    }
    const agent = await this.deps.agents.resolve(auth, target.spec.agentId);
    // An archived agent rolled back runs again: it takes a place in the quota, as a deploy would.
    await checkAgentQuota(this.deps.agents, auth, agent);
    // The limits the stored archive was checked against when it was uploaded.
    const limits = target.spec.archiveLimits ?? auth.plan.archive;
    return this.deps.records.accepted(
      auth,
      agent,
      configOfVersion(target, agent),
      target.spec.archiveId ?? '',
      [],
      limits,
      target.spec.version,
    );
  }
}
