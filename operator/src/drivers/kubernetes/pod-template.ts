/**
 * The pod an agent runs in, for a service's Deployment and for a run's Job:
 * an init container fetches the deployment artifact (code plus installed
 * dependencies) into /app, then the runtime's runner serves or runs it. A
 * `dockerfile` agent runs its own image instead, with no runner injected.
 * Pure functions of the resources and the configuration.
 */
import type { V1Container, V1EnvVar, V1PodSpec } from '@kubernetes/client-node';
import {
  LABELS,
  OBJECT_NAMES,
  type Agent,
  type AgentDeployment,
  type Runtime,
} from '../../../../crds/src/index.js';
import { internalToken } from '../../../../common/internal-token.js';
import type { OperatorConfig } from '../../config.js';
import { customImageContainer, podSecurity, restrictedContainer } from './security.js';

/** The port every agent serves on. */
export const AGENT_PORT = 8080;

/** vCPUs an agent gets: one per 2 GiB of memory, at least one. */
export function vcpusFor(memoryMb: number): number {
  return Math.max(1, Math.ceil(memoryMb / 2048));
}

/** The runner image of a runtime; the built image for `dockerfile`. */
export function agentImage(runtime: Runtime, cfg: OperatorConfig, builtImage: string): string {
  if (runtime === 'dockerfile') return builtImage;
  if (runtime.startsWith('python')) return cfg.images.runnerPython;
  if (runtime === 'bun') return cfg.images.runnerBun;
  return cfg.images.runnerNode;
}

/** The image a dockerfile deployment is built into. */
export function builtImageName(deployment: AgentDeployment, cfg: OperatorConfig): string {
  return `${cfg.imageRegistry}/${deployment.metadata.namespace}/${deployment.spec.agentId}:v${deployment.spec.version}`;
}

/** Options of {@link agentPodSpec}. */
export interface PodOptions {
  mode: 'service' | 'run';
  /** The run's own deployment id (SVC_SPAWN_ID when the run was spawned). */
  runDeploymentId?: string;
  spawned?: boolean;
}

/** The contract's injected environment (secrets come from envFrom). */
export function agentEnv(
  agent: Agent,
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  opts: PodOptions,
): V1EnvVar[] {
  const agentId = agent.metadata.name ?? '';
  const config = deployment.spec.config;
  const env: V1EnvVar[] = [
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

/** The pod spec of an agent's service or run. */
export function agentPodSpec(
  agent: Agent,
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  opts: PodOptions,
): V1PodSpec {
  const agentId = agent.metadata.name ?? '';
  const deploymentId = deployment.metadata.name ?? '';
  const runtime = deployment.spec.config.runtime;
  const memory = `${deployment.spec.config.memoryMb}Mi`;
  const cpu = String(vcpusFor(deployment.spec.config.memoryMb));
  const dockerfile = runtime === 'dockerfile';
  const container: V1Container = {
    name: 'agent',
    image: agentImage(runtime, cfg, builtImageName(deployment, cfg)),
    ...(dockerfile
      ? {}
      : { args: [opts.mode === 'service' ? 'serve' : 'run'], workingDir: '/app' }),
    env: [
      ...agentEnv(agent, deployment, cfg, opts),
      {
        name: 'SVC_API_KEY',
        valueFrom: {
          secretKeyRef: {
            name: OBJECT_NAMES.deploymentKeySecret(deploymentId),
            key: 'SVC_API_KEY',
          },
        },
      },
    ],
    // Every secret of the agent, as environment variables; the Secret may not exist yet.
    envFrom: [{ secretRef: { name: OBJECT_NAMES.agentSecrets(agentId), optional: true } }],
    ports: opts.mode === 'service' ? [{ name: 'http', containerPort: AGENT_PORT }] : [],
    resources: { requests: { memory, cpu: '100m' }, limits: { memory, cpu } },
    ...(opts.mode === 'service'
      ? {
          readinessProbe: {
            httpGet: { path: '/health', port: AGENT_PORT },
            periodSeconds: 5,
            failureThreshold: 3,
          },
          livenessProbe: {
            httpGet: { path: '/health', port: AGENT_PORT },
            periodSeconds: 15,
            failureThreshold: 4,
          },
        }
      : {}),
    volumeMounts: dockerfile ? [] : [{ name: 'app', mountPath: '/app' }],
    securityContext: dockerfile ? customImageContainer() : restrictedContainer(),
  };
  const fetch: V1Container = {
    name: 'fetch',
    image: cfg.images.builder,
    args: ['fetch', '--dest', '/app'],
    env: [
      {
        name: 'SVC_ARTIFACT_URL',
        value: `${cfg.internalApiUrl}/internal/deployments/${deploymentId}/artifact?token=${internalToken(cfg.internalSecret, 'artifact:read', deploymentId)}`,
      },
    ],
    volumeMounts: [{ name: 'app', mountPath: '/app' }],
    securityContext: restrictedContainer(),
  };
  return {
    restartPolicy: opts.mode === 'service' ? 'Always' : 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // The contract's shutdown grace for custom containers; runners stop faster.
    terminationGracePeriodSeconds: dockerfile ? 120 : 30,
    ...(dockerfile ? {} : { initContainers: [fetch], volumes: [{ name: 'app', emptyDir: {} }] }),
    containers: [container],
    // A custom image runs as the user it names (see security.ts); the platform's runners never need root.
    securityContext: podSecurity(!dockerfile),
  };
}

/** Labels every pod of the agent carries (the status route finds its machines by them). */
export function agentPodLabels(
  agent: Agent,
  deployment: AgentDeployment,
  component: string,
): Record<string, string> {
  return {
    [LABELS.agentId]: agent.metadata.name ?? '',
    [LABELS.deploymentId]: deployment.metadata.name ?? '',
    [LABELS.component]: component,
    [LABELS.region]: deployment.spec.config.regions[0] ?? 'local',
  };
}
