/**
 * Builders of the AgentDeployment objects the API server creates: one per deployed
 * version and one per run, each named by its UUID in the agent's namespace and owned
 * by the agent (so deleting the agent deletes them). Contract facts, kept beside the
 * kinds they build.
 */
import { controllerRef } from './owner-reference.js';
import type { Agent } from './agent.js';
import type { AgentDeployment, ArchiveLimits, DeploymentConfig } from './agent-deployment.js';
import type { TriggerSource } from './enums.js';
import { API_GROUP_VERSION, LABELS } from './names.js';

/** What a deployed version is made of. */
export interface VersionSpec {
  id: string;
  version: number;
  config: DeploymentConfig;
  archiveId: string | null;
  archiveLimits?: ArchiveLimits | null;
}

/** The AgentDeployment of a deployed version of `agent`. */
export function versionDeployment(agent: Agent, spec: VersionSpec): AgentDeployment {
  const agentId = agent.metadata.name ?? '';
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'AgentDeployment',
    metadata: {
      name: spec.id,
      namespace: agent.metadata.namespace,
      labels: { [LABELS.agentId]: agentId, [LABELS.deploymentVersion]: String(spec.version) },
      ownerReferences: [controllerRef(agent)],
    },
    spec: {
      agentId,
      version: spec.version,
      ephemeral: false,
      archiveId: spec.archiveId,
      ...(spec.archiveLimits ? { archiveLimits: spec.archiveLimits } : {}),
      config: spec.config,
    },
  };
}

/** What a run is started with. */
export interface RunSpec {
  id: string;
  /** The version serving when the run starts, whose build it runs. */
  serving: AgentDeployment;
  trigger: TriggerSource;
  /** The agent that spawned this run, if one did: the run stays in its first region. */
  spawnedBy: Agent | null;
}

/** The AgentDeployment of a run of `agent`. */
export function runDeployment(agent: Agent, spec: RunSpec): AgentDeployment {
  const agentId = agent.metadata.name ?? '';
  const { serving, spawnedBy } = spec;
  return {
    apiVersion: API_GROUP_VERSION,
    kind: 'AgentDeployment',
    metadata: {
      name: spec.id,
      namespace: agent.metadata.namespace,
      labels: { [LABELS.agentId]: agentId, [LABELS.run]: 'true' },
      ownerReferences: [controllerRef(agent)],
    },
    spec: {
      agentId,
      version: serving.spec.version,
      ephemeral: true,
      triggerSource: spec.trigger,
      spawnedByAgentId: spawnedBy?.metadata.name ?? null,
      archiveId: null,
      config: {
        ...serving.spec.config,
        regions: spawnedBy ? spawnedBy.spec.regions.slice(0, 1) : serving.spec.config.regions,
      },
    },
  };
}
