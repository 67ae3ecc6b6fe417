/**
 * Recording a new version of an agent, shared by the deploy and rollback commands:
 * an accepted one (the AgentDeployment the operator builds, its deployment key, the
 * agent pointed at it, older archives let go) or one rejected before any build
 * (state failed with the reason, no archive kept). Warnings go to the status and
 * to the agent's log.
 */
import { randomUUID } from 'node:crypto';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Collection } from 'mongodb';
import {
  type Agent,
  type AgentDeployment,
  type ArchiveLimits,
  type DeploymentConfig,
  versionDeployment,
} from '../../../crds/src/index.js';
import type { AccountService } from '../accounts/account-service.js';
import type { AgentService } from '../agents/agent-service.js';
import type { AuthContext } from '../auth/authenticate.js';
import { ServiceUnavailable } from '../errors/catalogue.js';
import type { LogStore } from '../logs/log-store.js';
import { setPlacement } from '../regions/placement.js';
import type { DeploymentVersionDoc } from '../store/database.js';
import type { RegionalRepository } from '../store/regional-resources.js';
import { retainArchives } from './archive-retention.js';
import type { ArchiveStore } from './archive-store.js';
import type { EffectiveConfig } from './config-file.js';
import { mintDeploymentKey } from './deployment-key-secret.js';
import { allocateVersion } from './version-numbers.js';

/** What the records are written with. */
export interface DeploymentRecordsDeps {
  /** The AgentDeployments, with a copy in each region of their agent. */
  deployments: RegionalRepository<'AgentDeployment'>;
  agents: AgentService;
  archives: ArchiveStore;
  versions: Collection<DeploymentVersionDoc>;
  accounts: AccountService;
  /** Where a deployment's warnings are written, beside what its build and runs print. */
  logs: LogStore;
}

/** Writes new versions, accepted or rejected. */
export class DeploymentRecords {
  constructor(private readonly deps: DeploymentRecordsDeps) {}

  /** The AgentDeployment of a new version, placed in every region of its agent. */
  private resource(
    agent: Agent,
    id: string,
    version: number,
    config: EffectiveConfig,
    archiveId: string | null,
    archiveLimits: ArchiveLimits | null,
    annotations: Record<string, string>,
  ): AgentDeployment {
    const deploymentConfig: DeploymentConfig = {
      runtime: config.runtime,
      agentType: config.agentType,
      entrypoint: config.entrypoint,
      memoryMb: config.memoryMb,
      regions: config.regions,
      schedule: config.schedule,
      keepAlive: config.keepAlive,
      idleTimeoutMinutes: config.idleTimeoutMinutes,
      ...(config.buildSecrets ? { buildSecrets: true } : {}),
    };
    const deployment = versionDeployment(agent, {
      id,
      version,
      config: deploymentConfig,
      archiveId,
      archiveLimits,
    });
    if (Object.keys(annotations).length > 0)
      deployment.metadata.annotations = { ...deployment.metadata.annotations, ...annotations };
    // Built and served in every region the agent is in, whatever svc.yaml's regions say.
    setPlacement(deployment, this.deps.agents.placement(agent));
    return deployment;
  }

  /**
   * Records a deployment that failed before any build: state failed, the reason, no archive
   * kept; `annotations` go on the AgentDeployment (where its code came from).
   */
  async rejected(
    auth: AuthContext,
    agent: Agent,
    config: EffectiveConfig,
    message: string,
    archiveId: string,
    warnings: string[] = [],
    annotations: Record<string, string> = {},
  ): Promise<AgentDeployment> {
    await this.deps.archives.delete(archiveId);
    const id = randomUUID();
    const version = await allocateVersion(this.deps.versions, agent.metadata.name ?? '', id);
    await this.deps.deployments.create(
      this.resource(agent, id, version, config, null, null, annotations),
    );
    const now = new Date().toISOString();
    const failed = await this.deps.deployments.updateStatus(auth.tenant.namespace, id, (d) => {
      d.status = {
        state: 'failed',
        errorMessage: message,
        warnings,
        startedAt: now,
        finishedAt: now,
        canRedeploy: false,
        canRollback: false,
      };
    });
    if (!failed)
      throw new ServiceUnavailable('The deployment vanished while it was recorded; retry.');
    await this.logWarnings(auth, failed, warnings);
    return failed;
  }

  /** Writes the deployment's warnings into the agent's log, where its build's lines follow. */
  private async logWarnings(
    auth: AuthContext,
    deployment: AgentDeployment,
    warnings: readonly string[],
  ): Promise<void> {
    if (warnings.length === 0) return;
    const id = deployment.metadata.name ?? '';
    await this.deps.logs
      .append(
        warnings.map((warning) => ({
          accountId: auth.account._id,
          environment: auth.tenant.environment,
          agentId: deployment.spec.agentId,
          deploymentId: id,
          stream: 'system' as const,
          level: 'WARN' as const,
          message: `version ${deployment.spec.version}: warning: ${warning}`,
        })),
      )
      // The deployment is recorded and answered with its warnings; a log that cannot be written
      // must not turn it into an error the client would retry as a second version.
      .catch(() => undefined);
  }

  /**
   * Records an accepted deployment, mints its key, and points the agent at it; `annotations`
   * go on the AgentDeployment (where its code came from).
   */
  async accepted(
    auth: AuthContext,
    agent: Agent,
    config: EffectiveConfig,
    archiveId: string,
    warnings: string[],
    archiveLimits: ArchiveLimits,
    rollbackOfVersion: number | null = null,
    annotations: Record<string, string> = {},
  ): Promise<AgentDeployment> {
    const agentId = agent.metadata.name ?? '';
    const id = randomUUID();
    const version = await allocateVersion(this.deps.versions, agentId, id);
    const resource = this.resource(
      agent,
      id,
      version,
      config,
      archiveId,
      archiveLimits,
      annotations,
    );
    resource.spec.rollbackOfVersion = rollbackOfVersion;
    const created = await this.deps.deployments.create(resource);
    if (warnings.length > 0) {
      await this.deps.deployments.updateStatus(auth.tenant.namespace, id, (d) => {
        d.status = { ...d.status, warnings };
      });
      await this.logWarnings(auth, created, warnings);
    }
    // One API: the copy just created is the only one (no extra read on the single-region path).
    const copies = this.deps.deployments.apis.single
      ? [{ api: this.deps.deployments.apis.homeApi, object: created }]
      : await this.deps.deployments.copies(auth.tenant.namespace, id);
    await mintDeploymentKey(
      this.deps.accounts,
      auth,
      copies.map((c) => ({ core: c.api.kc.makeApiClient(CoreV1Api), deployment: c.object })),
    );
    await this.deps.agents.adoptVersion(auth, agentId, config, version);
    await retainArchives(this.deps.deployments, this.deps.archives, auth, agentId);
    return (await this.deps.deployments.get(auth.tenant.namespace, id)) ?? created;
  }
}
