/**
 * The `AgentDeployment` custom resource: one per deployed version and one per
 * run, named by its UUID, in the account's namespace, owned by its Agent.
 * Every field of the contract's Deployment and Run records maps to one here
 * (`id` is `metadata.name`, `created_at` is `metadata.creationTimestamp`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { AGENT_TYPES, DEPLOYMENT_STATES, RUNTIMES, TRIGGER_SOURCES } from './enums.js';
import {
  Conditions,
  dateTime,
  nullable,
  stringEnum,
  stringSet,
  type ObjectMeta,
} from './schema.js';

/** The agent configuration a deployment was built from (the merge of the agent and svc.yaml). */
export const DeploymentConfig = Type.Object({
  runtime: stringEnum(RUNTIMES),
  agentType: stringEnum(AGENT_TYPES),
  entrypoint: Type.Optional(nullable(Type.String())),
  memoryMb: Type.Integer({ minimum: 1 }),
  regions: stringSet(),
  schedule: Type.Optional(nullable(Type.String())),
  keepAlive: Type.Optional(Type.Boolean()),
  /** The build sees the agent's secrets as environment variables (svc.yaml's `build_secrets`). */
  buildSecrets: Type.Optional(Type.Boolean()),
  idleTimeoutMinutes: Type.Optional(Type.Integer({ minimum: 0 })),
});
/** Spec field `config` of an {@link AgentDeployment}. */
export type DeploymentConfig = Static<typeof DeploymentConfig>;

/**
 * How far a code archive may expand, from the account's plan when it was
 * uploaded: the API server checked the archive against these, and a builder
 * unpacking it enforces them again.
 */
export const ArchiveLimits = Type.Object({
  maxUnpackedBytes: Type.Integer({
    minimum: 1,
    description: 'Total bytes of the files, once unpacked.',
  }),
  maxEntries: Type.Integer({ minimum: 1, description: 'Entries (files, directories, links).' }),
  maxFileBytes: Type.Integer({ minimum: 1, description: 'Bytes of any one file.' }),
});
/** Spec field `archiveLimits` of an {@link AgentDeployment}. */
export type ArchiveLimits = Static<typeof ArchiveLimits>;

/**
 * What a builder holds an archive to when its deployment records no limits
 * (one made before they were recorded): the most any default plan allows.
 */
export const FALLBACK_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = {
  maxUnpackedBytes: 8 * 1024 ** 3,
  maxEntries: 200_000,
  maxFileBytes: 2 * 1024 ** 3,
};

/**
 * How many of an agent's most recent successful (built) deployments keep their
 * code archive (API server) and their build (local driver); the contract's 3.
 */
export const ARCHIVES_KEPT = 3;

/**
 * The versions among an agent's `deployments` whose code is kept: the
 * {@link ARCHIVES_KEPT} most recent successful (built) ones, newest first. The
 * API server keeps their archives and the drivers their builds by this one rule.
 */
export function versionsKept(deployments: readonly AgentDeployment[]): AgentDeployment[] {
  return deployments
    .filter((d) => !d.spec.ephemeral && d.status?.builtAt)
    .sort((a, b) => b.spec.version - a.spec.version)
    .slice(0, ARCHIVES_KEPT);
}

/** What the API server asks for. */
export const AgentDeploymentSpec = Type.Object({
  agentId: Type.String({ format: 'uuid' }),
  version: Type.Integer({ minimum: 1 }),
  ephemeral: Type.Boolean({ description: 'is_ephemeral: a scheduled, manual or spawned run.' }),
  triggerSource: Type.Optional(
    stringEnum(TRIGGER_SOURCES, { description: 'Absent for a deployed version.' }),
  ),
  spawnedByAgentId: Type.Optional(nullable(Type.String({ format: 'uuid' }))),
  archiveId: Type.Optional(
    nullable(Type.String({ description: 'GridFS id of the code archive.' })),
  ),
  rollbackOfVersion: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
  archiveLimits: Type.Optional(ArchiveLimits),
  config: DeploymentConfig,
  cancellationRequested: Type.Optional(Type.Boolean()),
  cancellationReason: Type.Optional(nullable(Type.String())),
});
/** Spec of an {@link AgentDeployment}. */
export type AgentDeploymentSpec = Static<typeof AgentDeploymentSpec>;

/** What the operator observed. */
export const AgentDeploymentStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  conditions: Type.Optional(Conditions),
  state: Type.Optional(stringEnum(DEPLOYMENT_STATES)),
  queuePosition: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
  imageSizeMb: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
  regions: Type.Optional(stringSet()),
  pendingRegions: Type.Optional(stringSet()),
  regionsTotal: Type.Optional(Type.Integer({ minimum: 0 })),
  regionsReady: Type.Optional(Type.Integer({ minimum: 0 })),
  pendingRegionAlertStage: Type.Optional(nullable(Type.String())),
  isServing: Type.Optional(Type.Boolean()),
  isDegraded: Type.Optional(Type.Boolean()),
  canRedeploy: Type.Optional(Type.Boolean()),
  canRollback: Type.Optional(Type.Boolean()),
  startedAt: Type.Optional(nullable(dateTime())),
  builtAt: Type.Optional(nullable(dateTime('When the build produced a runnable artifact.'))),
  deployedAt: Type.Optional(nullable(dateTime())),
  finishedAt: Type.Optional(nullable(dateTime('When the deployment reached a final state.'))),
  errorMessage: Type.Optional(nullable(Type.String())),
  warnings: Type.Optional(Type.Array(Type.String())),
  jobId: Type.Optional(nullable(Type.String())),
  machineStartedAt: Type.Optional(nullable(dateTime())),
  machineStoppedAt: Type.Optional(nullable(dateTime())),
  durationSeconds: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
});
/** Status of an {@link AgentDeployment}. */
export type AgentDeploymentStatus = Static<typeof AgentDeploymentStatus>;

/** An `AgentDeployment` object as read from or written to the Kubernetes API. */
export interface AgentDeployment {
  apiVersion: 'svc.dev/v1alpha1';
  kind: 'AgentDeployment';
  metadata: ObjectMeta;
  spec: AgentDeploymentSpec;
  status?: AgentDeploymentStatus;
}
