/** A rollback: a new version built from an earlier one's stored code and configuration. */
import type { Agent, AgentDeployment } from '../../../crds/src/index.js';
import type { EffectiveConfig } from './config-file.js';

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
