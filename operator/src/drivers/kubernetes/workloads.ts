/**
 * The Kubernetes objects of an agent, as pure functions of its resources:
 * the Deployment and Service of a `service` agent, the build Job of a
 * deployment, the Job of a run, the CronJob of a schedule. Every object
 * carries a controller owner reference, so the garbage collector removes it
 * with its owner.
 */
import type {
  V1CronJob,
  V1Deployment,
  V1EnvFromSource,
  V1EnvVar,
  V1Job,
  V1Service,
} from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  FALLBACK_ARCHIVE_LIMITS,
  LABELS,
  MANAGED_BY,
  OBJECT_NAMES,
  type Agent,
  type AgentDeployment,
} from '../../../../crds/src/index.js';
import { internalToken } from '../../../../common/internal-token.js';
import { controllerRef } from '../../../../crds/src/owner-reference.js';
import type { OperatorConfig } from '../../config.js';
import { AGENT_PORT, agentSecretSources, longSecretRefs } from '../agent-environment.js';
import { agentPodLabels, agentPodSpec, builtImageName } from './pod-template.js';
import { imageBuildContainer, podSecurity, restrictedContainer } from './security.js';

function meta(name: string, owner: Agent | AgentDeployment, agentId: string, component: string) {
  return {
    name,
    namespace: owner.metadata.namespace,
    labels: {
      [LABELS.agentId]: agentId,
      [LABELS.component]: component,
      [LABELS.managedBy]: MANAGED_BY,
    },
    ownerReferences: [controllerRef(owner)],
  };
}

/**
 * The annotations of a service's pods. The secrets revision the API server stamps on the
 * Agent is copied here, so a change of the agent's secrets changes the pod template and
 * the Deployment rolls its pods (new ones first), which read the new values through envFrom.
 */
function podAnnotations(agent: Agent, deployment: AgentDeployment): Record<string, string> {
  const revision = agent.metadata.annotations?.[ANNOTATIONS.secretsRevision];
  return {
    [ANNOTATIONS.deploymentId]: deployment.metadata.name ?? '',
    ...(revision ? { [ANNOTATIONS.secretsRevision]: revision } : {}),
  };
}

/** The Deployment serving `deployment` of a `service` agent, with `replicas` pods (0 when stopped or idle). */
export function serviceDeployment(
  agent: Agent,
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  replicas: number,
): V1Deployment {
  const agentId = agent.metadata.name ?? '';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      ...meta(OBJECT_NAMES.workload(agentId), agent, agentId, 'service'),
      annotations: { [ANNOTATIONS.deploymentId]: deployment.metadata.name ?? '' },
    },
    spec: {
      replicas,
      selector: { matchLabels: { [LABELS.agentId]: agentId, [LABELS.component]: 'service' } },
      progressDeadlineSeconds: 300,
      revisionHistoryLimit: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: agentPodLabels(agent, deployment, 'service'),
          annotations: podAnnotations(agent, deployment),
        },
        spec: agentPodSpec(agent, deployment, cfg, { mode: 'service' }),
      },
    },
  };
}

/** The Service in front of a service agent's pods: what the edge routes to. */
export function agentService(agent: Agent): V1Service {
  const agentId = agent.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(OBJECT_NAMES.workload(agentId), agent, agentId, 'service'),
    spec: {
      type: 'ClusterIP',
      selector: { [LABELS.agentId]: agentId, [LABELS.component]: 'service' },
      ports: [{ name: 'http', port: 80, targetPort: AGENT_PORT, protocol: 'TCP' }],
    },
  };
}

/**
 * The build Job of a deployment. Standard runtimes: the builder fetches the
 * code archive, installs the dependencies, and stores the resulting artifact.
 * `dockerfile`: an in-cluster image builder builds the archive's Dockerfile
 * and pushes the image to the configured registry.
 */
export function buildJob(
  deployment: AgentDeployment,
  cfg: OperatorConfig,
  /** The agent, whose secrets the build gets when its svc.yaml says `build_secrets: true`. */
  agent?: Agent,
): V1Job {
  const id = deployment.metadata.name ?? '';
  const agentId = deployment.spec.agentId;
  const archiveUrl = `${cfg.internalApiUrl}/internal/deployments/${id}/archive?token=${internalToken(cfg.internalSecret, 'archive:read', id)}`;
  const dockerfile = deployment.spec.config.runtime === 'dockerfile';
  const secrets = buildSecretsOf(deployment, agent);
  const fetchSource = {
    name: 'source',
    image: cfg.images.builder,
    args: ['unpack', '--dest', '/workspace'],
    env: [
      { name: 'SVC_ARCHIVE_URL', value: archiveUrl },
      // The limits the API checked the archive against: the unpack holds it to them again.
      {
        name: 'SVC_ARCHIVE_LIMITS',
        value: JSON.stringify(deployment.spec.archiveLimits ?? FALLBACK_ARCHIVE_LIMITS),
      },
    ],
    volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
    securityContext: restrictedContainer(),
  };
  const container = dockerfile
    ? {
        name: 'build',
        image: cfg.images.imageBuilder,
        args: [
          '--context=dir:///workspace',
          `--destination=${builtImageName(deployment, cfg)}`,
          '--snapshot-mode=redo',
        ],
        volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
        // Building an image takes root: one of the two exceptions in security.ts.
        securityContext: imageBuildContainer(),
      }
    : {
        name: 'build',
        image: cfg.images.builder,
        args: [
          'build',
          '--source',
          '/workspace',
          '--runtime',
          deployment.spec.config.runtime,
          // Compile-checked at build, so a syntax error fails the deploy, not the first run.
          ...(deployment.spec.config.entrypoint
            ? ['--entrypoint', deployment.spec.config.entrypoint]
            : []),
        ],
        env: [
          {
            name: 'SVC_ARTIFACT_URL',
            value: `${cfg.internalApiUrl}/internal/deployments/${id}/artifact?token=${internalToken(cfg.internalSecret, 'artifact:write', id)}`,
          },
          // Certificates its dependency installs trust besides the public ones (the builder
          // writes them to a bundle for pip and npm).
          ...(cfg.buildCaCertificates
            ? [{ name: 'SVC_EXTRA_CA_CERTS', value: cfg.buildCaCertificates }]
            : []),
          ...(secrets?.env ?? []),
        ],
        ...(secrets ? { envFrom: secrets.envFrom } : {}),
        volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
        securityContext: restrictedContainer(),
      };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      ...meta(OBJECT_NAMES.buildJob(id), deployment, agentId, 'build'),
      labels: { ...meta('', deployment, agentId, 'build').labels, [LABELS.deploymentId]: id },
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: cfg.buildTimeoutSeconds,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: {
          labels: {
            [LABELS.agentId]: agentId,
            [LABELS.deploymentId]: id,
            [LABELS.component]: 'build',
          },
        },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          initContainers: [fetchSource],
          containers: [{ ...container, terminationMessagePolicy: 'FallbackToLogsOnError' }],
          volumes: [{ name: 'workspace', emptyDir: {} }],
          securityContext: podSecurity(!dockerfile),
        },
      },
    },
  };
}

/**
 * The secrets a build opted into (`build_secrets: true`), as a pod reads them:
 * the agent's Secrets through envFrom, long keys named one by one; none otherwise.
 */
function buildSecretsOf(
  deployment: AgentDeployment,
  agent: Agent | undefined,
): { env: V1EnvVar[]; envFrom: V1EnvFromSource[] } | null {
  if (!deployment.spec.config.buildSecrets || !agent) return null;
  return {
    env: longSecretRefs(agent).map(({ name, secretName, dataKey }) => ({
      name,
      valueFrom: { secretKeyRef: { name: secretName, key: dataKey, optional: true } },
    })),
    envFrom: agentSecretSources(agent).map((name) => ({ secretRef: { name, optional: true } })),
  };
}

/** The Job of one run (`run` is the ephemeral deployment; `serving` the version it runs). */
export function runJob(
  agent: Agent,
  run: AgentDeployment,
  serving: AgentDeployment,
  cfg: OperatorConfig,
): V1Job {
  const runId = run.metadata.name ?? '';
  const agentId = agent.metadata.name ?? '';
  const spawned = Boolean(run.spec.spawnedByAgentId);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      ...meta(OBJECT_NAMES.runJob(runId), run, agentId, 'run'),
      labels: { ...meta('', run, agentId, 'run').labels, [LABELS.deploymentId]: runId },
    },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: 3600,
      template: {
        metadata: {
          labels: { ...agentPodLabels(agent, serving, 'run'), [LABELS.deploymentId]: runId },
        },
        spec: agentPodSpec(agent, serving, cfg, { mode: 'run', runDeploymentId: runId, spawned }),
      },
    },
  };
}

/**
 * The CronJob of an agent's schedule. Each firing asks the API for a run
 * (trigger `cron`) with the agent's own deployment key, so scheduled runs are
 * recorded, limited and run exactly like manual ones. UTC, no backfill, and
 * suspended while the schedule or the agent is paused.
 */
export function scheduleCronJob(
  agent: Agent,
  serving: AgentDeployment,
  cfg: OperatorConfig,
  suspend: boolean,
): V1CronJob {
  const agentId = agent.metadata.name ?? '';
  const servingId = serving.metadata.name ?? '';
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta(OBJECT_NAMES.cronJob(agentId), agent, agentId, 'schedule'),
    spec: {
      schedule: agent.spec.schedule ?? '',
      timeZone: 'Etc/UTC',
      suspend,
      // A missed firing older than a minute is skipped, never caught up.
      startingDeadlineSeconds: 60,
      // Runs may overlap; the API enforces the plan's runs in flight.
      concurrencyPolicy: 'Allow',
      successfulJobsHistoryLimit: 1,
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        spec: {
          backoffLimit: 2,
          ttlSecondsAfterFinished: 600,
          template: {
            metadata: { labels: { [LABELS.agentId]: agentId, [LABELS.component]: 'schedule' } },
            spec: {
              restartPolicy: 'OnFailure',
              automountServiceAccountToken: false,
              enableServiceLinks: false,
              securityContext: podSecurity(true),
              containers: [
                {
                  name: 'trigger',
                  image: cfg.images.trigger,
                  args: [
                    '-fsS',
                    '-X',
                    'POST',
                    `${cfg.internalApiUrl}/api/v1/agents/${agentId}/run`,
                    '-H',
                    'X-Svc-Trigger: cron',
                    '-H',
                    'Content-Type: application/json',
                    '-H',
                    'Authorization: Bearer $(SVC_API_KEY)',
                    '-d',
                    '{}',
                  ],
                  env: [
                    {
                      name: 'SVC_API_KEY',
                      valueFrom: {
                        secretKeyRef: {
                          name: OBJECT_NAMES.deploymentKeySecret(servingId),
                          key: 'SVC_API_KEY',
                        },
                      },
                    },
                  ],
                  securityContext: restrictedContainer(),
                },
              ],
            },
          },
        },
      },
    },
  };
}
