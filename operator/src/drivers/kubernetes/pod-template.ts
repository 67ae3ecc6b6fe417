/**
 * The pod an agent runs in, for a service's Deployment and for a run's Job:
 * an init container fetches the deployment artifact (code plus installed
 * dependencies) into /app, then the runtime's runner serves or runs it. A
 * `dockerfile` agent runs its own image instead, with no runner injected.
 * Pure functions of the resources and the configuration.
 */
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
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
import {
  AGENT_PORT,
  agentEnv,
  agentSecretSources,
  longSecretRefs,
  vcpusFor,
  type AgentEnvOptions,
} from '../agent-environment.js';

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

/** The pod spec of an agent's service or run. */
export function agentPodSpec(
  agent: Agent,
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  opts: AgentEnvOptions,
): V1PodSpec {
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
      // The runner fetches the built code into /app before it starts it (its fetch module):
      // no init container for a wake to wait on. The runner drops it from the agent's environment.
      ...(dockerfile
        ? []
        : [
            {
              name: 'SVC_ARTIFACT_URL',
              value: `${cfg.internalApiUrl}/internal/deployments/${deploymentId}/artifact?token=${internalToken(cfg.internalSecret, 'artifact:read', deploymentId)}`,
            },
          ]),
      // Keys too long for a data key, which envFrom would not name (see longSecretRefs).
      ...longSecretRefs(agent).map(({ name, secretName, dataKey }) => ({
        name,
        valueFrom: { secretKeyRef: { name: secretName, key: dataKey, optional: true } },
      })),
    ],
    // Every secret of the agent's workspace, then its own (later wins on a shared key), as
    // environment variables; a Secret may not exist yet.
    envFrom: agentSecretSources(agent).map((name) => ({ secretRef: { name, optional: true } })),
    ports: opts.mode === 'service' ? [{ name: 'http', containerPort: AGENT_PORT }] : [],
    resources: { requests: { memory, cpu: '100m' }, limits: { memory, cpu } },
    ...(opts.mode === 'service'
      ? {
          // Every second until the runner first answers (a wake waits on it: the kubelet runs
          // the readiness probe as soon as this one passes), for up to two minutes of imports.
          startupProbe: {
            httpGet: { path: '/health', port: AGENT_PORT },
            periodSeconds: 1,
            failureThreshold: 120,
          },
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
  return {
    restartPolicy: opts.mode === 'service' ? 'Always' : 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    // The contract's shutdown grace for custom containers; runners stop faster.
    terminationGracePeriodSeconds: dockerfile ? 120 : 30,
    ...(dockerfile ? {} : { volumes: [{ name: 'app', emptyDir: {} }] }),
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
