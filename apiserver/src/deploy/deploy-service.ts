/**
 * Deploying a code archive: the archive is streamed to GridFS and scanned in
 * the same pass; `svc.yaml` is applied to the agent as a merge patch; the
 * result becomes a new `AgentDeployment` version that the operator builds.
 *
 * Problems with the request or the account are HTTP errors and leave nothing
 * behind (unknown agent, RUNTIME_IMMUTABLE, plan caps and agent quota, a body
 * that is not a tar.gz, an archive that unpacks past the plan's limits).
 * Problems with the code itself (configuration values,
 * the schedule, the entry point, the Dockerfile) fail the deployment: it is
 * recorded with state `failed` and its `error_message`, and the agent keeps
 * its settings.
 */
import type { Readable } from 'node:stream';
import type { Collection } from 'mongodb';
import { type Agent, type AgentDeployment, type Tier } from '../../../crds/src/index.js';
import { ArchiveLimitError } from '../../../common/archive-limits.js';
import type { AccountService } from '../accounts/account-service.js';
import type { Plan } from '../accounts/plans.js';
import type { AgentService } from '../agents/agent-service.js';
import { checkPlanCaps } from '../agents/plan-caps.js';
import type { AuthContext } from '../auth/authenticate.js';
import {
  ArchiveTooLarge,
  InvalidArchive,
  RequestTooLarge,
  RuntimeImmutable,
  ServiceUnavailable,
} from '../errors/catalogue.js';
import type { LogStore } from '../logs/log-store.js';
import { RegionalRepository } from '../store/regional-resources.js';
import type { RegionApis } from '../regions/region-apis.js';
import type { DeploymentVersionDoc } from '../store/database.js';
import { checkAgentQuota } from './agent-quota.js';
import { checkAppExport, scriptModuleType } from './app-export.js';
import type { ArchiveScan } from './archive-scan.js';
import { InvalidArchiveError } from './archive-scan.js';
import { ArchiveTooLargeError, type ArchiveStore } from './archive-store.js';
import { mergeConfig, parseConfigFile, type EffectiveConfig } from './config-file.js';
import { lintDockerfile } from './dockerfile-lint.js';
import { DeploymentRecords } from './deployment-records.js';
import { validateSchedule } from './schedule.js';
import { storeAndScan } from './upload.js';

/** What the service is built from. */
export interface DeployServiceDeps {
  /** The regions' Kubernetes APIs: a deployment has a copy in each region of its agent. */
  apis: RegionApis;
  agents: AgentService;
  archives: ArchiveStore;
  versions: Collection<DeploymentVersionDoc>;
  accounts: AccountService;
  plans: Record<Tier, Plan>;
  regions: readonly string[];
  maxArchiveBytes: number;
  /** Where a deployment's warnings are written, beside what its build and runs print. */
  logs: LogStore;
}

/** The agent's settings as the configuration file merges over them. */
export function effectiveConfig(agent: Agent): EffectiveConfig {
  const { spec } = agent;
  return {
    runtime: spec.runtime,
    agentType: spec.agentType,
    entrypoint: spec.entrypoint ?? null,
    memoryMb: spec.memoryMb,
    regions: [...spec.regions],
    schedule: spec.schedule ?? null,
    keepAlive: spec.keepAlive,
    idleTimeoutMinutes: spec.idleTimeoutMinutes,
    buildSecrets: spec.buildSecrets ?? false,
  };
}

/** Deploys, and the deployment records' lifecycle on the API side. */
export class DeployService {
  readonly deployments: RegionalRepository<'AgentDeployment'>;
  /** Writes the new versions, accepted or rejected (the rollback command's too). */
  readonly records: DeploymentRecords;

  constructor(private readonly deps: DeployServiceDeps) {
    this.deployments = new RegionalRepository(deps.apis, 'AgentDeployment', 'deployment');
    this.records = new DeploymentRecords({ ...deps, deployments: this.deployments });
  }

  /**
   * Deploys the archive in `body` to the agent `ref` (or to the agent its svc.yaml names);
   * `annotations` are written on the new AgentDeployment with it (a code-host push's source).
   */
  async deploy(
    auth: AuthContext,
    ref: string,
    body: Readable,
    annotations: Record<string, string> = {},
  ): Promise<AgentDeployment> {
    const { agents, archives } = this.deps;
    let agent = await agents.resolve(auth, ref);
    let upload;
    try {
      upload = await storeAndScan(
        archives,
        body,
        'code.tar.gz',
        { accountId: auth.account._id, environment: auth.tenant.environment },
        this.deps.maxArchiveBytes,
        auth.plan.archive,
      );
    } catch (err) {
      if (err instanceof InvalidArchiveError) throw new InvalidArchive(err.message, { cause: err });
      if (err instanceof ArchiveLimitError) {
        throw new ArchiveTooLarge(`${err.message} Nothing was stored.`, {
          cause: err,
          fields: {
            field: err.limit,
            allowed: err.allowed,
            tier: auth.account.tier,
            ...(err.path ? { path: err.path } : {}),
          },
        });
      }
      if (err instanceof ArchiveTooLargeError) {
        throw new RequestTooLarge(err.message, { fields: { max_bytes: err.maxBytes } });
      }
      throw new ServiceUnavailable('The archive store is unreachable; nothing was written.', {
        cause: err,
      });
    }
    const { stored, scan } = upload;
    try {
      const hasConfigFile = scan.files.some((f) => CONFIG_FILES.includes(f.path));
      const file = parseConfigFile(scan.texts.get('svc.yaml') ?? scan.texts.get('svc.yml') ?? '');
      if (file.ok && file.config.name && file.config.name !== agent.spec.name) {
        // `name` in the file retargets the deploy; it never renames.
        agent = await agents.resolve(auth, file.config.name);
      }
      if (!file.ok)
        return await this.records.rejected(
          auth,
          agent,
          effectiveConfig(agent),
          `svc.yaml: ${file.message}`,
          stored.id,
          [],
          annotations,
        );
      const merged = mergeConfig(effectiveConfig(agent), file.config);
      if (!merged.ok) {
        if (merged.code === 'RUNTIME_IMMUTABLE') {
          throw new RuntimeImmutable(merged.message, {
            fields: { field: 'runtime', current: agent.spec.runtime },
          });
        }
        return await this.records.rejected(
          auth,
          agent,
          effectiveConfig(agent),
          `svc.yaml: ${merged.message}`,
          stored.id,
          [],
          annotations,
        );
      }
      const config = merged.config;
      const configWarnings = hasConfigFile ? [] : [noConfigFileWarning(config, scan)];
      checkPlanCaps(
        { ...config, tier: agent.spec.tier },
        auth.account.tier,
        this.deps.plans,
        this.deps.regions,
      );
      await checkAgentQuota(this.deps.agents, auth, agent);

      if (config.schedule) {
        const schedule = validateSchedule(config.schedule);
        if (!schedule.ok)
          return await this.records.rejected(
            auth,
            agent,
            config,
            `schedule: ${schedule.message}`,
            stored.id,
            configWarnings,
            annotations,
          );
        config.schedule = schedule.normalized;
      }
      const problem = codeProblem(config, scan);
      const warnings = [...configWarnings, ...problem.warnings];
      if (problem.blocking)
        return await this.records.rejected(
          auth,
          agent,
          config,
          problem.blocking,
          stored.id,
          warnings,
          annotations,
        );
      return await this.records.accepted(
        auth,
        agent,
        config,
        stored.id,
        warnings,
        auth.plan.archive,
        null,
        annotations,
      );
    } catch (err) {
      await archives.delete(stored.id).catch(() => undefined);
      throw err;
    }
  }

  /** The id of the agent `ref` (404 AGENT_NOT_FOUND otherwise). */
  async agentOf(auth: AuthContext, ref: string): Promise<string> {
    return (await this.deps.agents.resolve(auth, ref)).metadata.name ?? '';
  }
}

/** The names the configuration file may have at the archive root. */
const CONFIG_FILES: readonly string[] = ['svc.yaml', 'svc.yml'];

/**
 * The warning of a deploy without svc.yaml at the archive root: the agent's
 * current settings are used as they are, and the user should know which.
 */
export function noConfigFileWarning(config: EffectiveConfig, scan: ArchiveScan): string {
  const nested = scan.files.find((f) => CONFIG_FILES.some((name) => f.path.endsWith(`/${name}`)));
  const settings = [
    `runtime ${config.runtime}`,
    `type ${config.agentType}`,
    ...(config.entrypoint ? [`entrypoint ${config.entrypoint}`] : []),
    `memory_mb ${config.memoryMb}`,
    config.schedule ? `schedule "${config.schedule}"` : 'no schedule',
  ];
  return (
    `No svc.yaml at the archive root, so the agent's current settings were used: ${settings.join(', ')}. ` +
    (nested
      ? `The archive has ${nested.path}: archive the project's contents, not the folder holding them.`
      : 'Add svc.yaml to the project root to set them with the code.')
  );
}

/** The first problem that blocks a build, and the warnings, found in the scanned code. */
function codeProblem(
  config: EffectiveConfig,
  scan: ArchiveScan,
): { blocking: string | null; warnings: string[] } {
  if (config.runtime === 'dockerfile') {
    const sources = [...scan.texts].map(([path, text]) => ({ path, text }));
    const hasDockerfile = scan.files.some((f) => f.path === 'Dockerfile');
    return lintDockerfile(
      hasDockerfile ? (scan.texts.get('Dockerfile') ?? '') : null,
      scan.files,
      sources,
    );
  }
  const entry = config.entrypoint ?? '';
  if (!scan.files.some((f) => f.path === entry)) {
    return { blocking: `The entry point ${entry} is not in the archive.`, warnings: [] };
  }
  const source = scan.texts.get(entry);
  if (config.agentType === 'service' && source !== undefined) {
    // The archive's own package.json files decide the module type, wherever the code is unpacked.
    const manifests = new Map(
      scan.files
        .filter((f) => f.path === 'package.json' || f.path.endsWith('/package.json'))
        .map((f) => [f.path, scan.texts.get(f.path) ?? null]),
    );
    const moduleType = scriptModuleType(entry, manifests);
    const exported = checkAppExport(config.runtime, source, moduleType, entry);
    if (!exported.ok) return { blocking: exported.message, warnings: [] };
  }
  return { blocking: null, warnings: [] };
}
