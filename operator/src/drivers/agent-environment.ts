/**
 * The environment the platform gives every agent process, the same for both drivers
 * (a pod's `env`, a local process's environment): the contract's `SVC_*` variables and
 * `PORT`. A pure function of the resources and the configuration.
 */
import {
  ANNOTATIONS,
  OBJECT_NAMES,
  parseJsonAnnotation,
  secretDataKey,
  workspaceId,
  workspaceSecretsName,
  type Agent,
  type AgentDeployment,
} from '../../../crds/src/index.js';
import type { OperatorConfig } from '../config.js';

/** One variable. */
export interface EnvVar {
  name: string;
  value: string;
}

/** The port every agent serves on. */
export const AGENT_PORT = 8080;

/** vCPUs an agent gets: one per 2 GiB of memory, at least one. */
export function vcpusFor(memoryMb: number): number {
  return Math.max(1, Math.ceil(memoryMb / 2048));
}

/** Which process of the agent the environment is for. */
export interface AgentEnvOptions {
  mode: 'service' | 'run';
  /** The run's own deployment id (SVC_SPAWN_ID when the run was spawned). */
  runDeploymentId?: string;
  spawned?: boolean;
}

/**
 * The contract's injected environment, in order (secrets are added by each driver: a
 * pod's envFrom, the local process's environment).
 */
export function agentEnv(
  agent: Agent,
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  opts: AgentEnvOptions,
): EnvVar[] {
  const agentId = agent.metadata.name ?? '';
  const config = deployment.spec.config;
  const env: EnvVar[] = [
    { name: 'SVC_AGENT_ID', value: agentId },
    { name: 'SVC_AGENT_NAME', value: agent.spec.name },
    { name: 'SVC_REGION', value: config.regions[0] ?? 'local' },
    { name: 'SVC_MEMORY_MB', value: String(config.memoryMb) },
    { name: 'SVC_VCPUS', value: String(vcpusFor(config.memoryMb)) },
    { name: 'SVC_API_URL', value: cfg.publicApiUrl },
    { name: 'SVC_VECTORS_URL', value: cfg.vectorsUrl },
    { name: 'SVC_SPAWN_URL', value: `${cfg.publicApiUrl}/api/v1/agents/${agentId}/spawn` },
    { name: 'SVC_DEPLOYMENT_ID', value: opts.runDeploymentId ?? deployment.metadata.name ?? '' },
    { name: 'SVC_RUNTIME', value: config.runtime },
    { name: 'SVC_AGENT_TYPE', value: config.agentType },
    { name: 'SVC_MODE', value: opts.mode },
    { name: 'PORT', value: String(AGENT_PORT) },
  ];
  if (config.entrypoint) env.push({ name: 'SVC_ENTRYPOINT', value: config.entrypoint });
  if (opts.spawned && opts.runDeploymentId)
    env.push({ name: 'SVC_SPAWN_ID', value: opts.runDeploymentId });
  if (agent.spec.workspaceName)
    env.push({ name: 'SVC_WORKSPACE', value: agent.spec.workspaceName });
  return env;
}

/**
 * The Secrets whose keys become the agent's environment variables, in the
 * order they apply: its workspace's (when it is in one), then its own, so
 * on the same key the agent's own value wins (later wins, as in envFrom).
 */
export function agentSecretSources(agent: Agent): string[] {
  const namespace = agent.metadata.namespace ?? '';
  const workspaceName = agent.spec.workspaceName;
  return [
    ...(workspaceName ? [workspaceSecretsName(workspaceId(namespace, workspaceName))] : []),
    OBJECT_NAMES.agentSecrets(agent.metadata.name ?? ''),
  ];
}

/** A secret stored under a derived data key: the variable, its Secret and its data key. */
export interface LongSecretRef {
  name: string;
  secretName: string;
  dataKey: string;
}

/**
 * The secrets whose keys are longer than a Secret's data keys may be (the API
 * server lists them on the Agent), in the order they apply: a pod's `envFrom`
 * cannot give them their names, so its `env` names each one.
 */
export function longSecretRefs(agent: Agent): LongSecretRef[] {
  const annotations = agent.metadata.annotations ?? {};
  const sources = agentSecretSources(agent);
  const own = sources[sources.length - 1];
  const workspace = sources.length > 1 ? sources[0] : undefined;
  const keysOf = (annotation: string) => parseJsonAnnotation<unknown>(annotations[annotation], []);
  const refs = (keys: unknown, secretName: string | undefined): LongSecretRef[] =>
    Array.isArray(keys) && secretName
      ? keys
          .filter((key): key is string => typeof key === 'string' && /^[A-Za-z_]\w*$/.test(key))
          .map((name) => ({ name, secretName, dataKey: secretDataKey(name) }))
      : [];
  return [
    ...refs(keysOf(ANNOTATIONS.workspaceLongSecretKeys), workspace),
    ...refs(keysOf(ANNOTATIONS.longSecretKeys), own),
  ];
}
