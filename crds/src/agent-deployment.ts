/**
 * The `AgentDeployment` custom resource: one per deployed version and one per
 * run, named by its UUID, in the account's namespace, owned by its Agent.
 * Every field of the contract's Deployment and Run records maps to one here
 * (`id` is `metadata.name`, `created_at` is `metadata.creationTimestamp`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { AGENT_TYPES, DEPLOYMENT_STATES, RUNTIMES, TRIGGER_SOURCES } from './enums.js';
import {
  conditionList,
  dateTime,
  nullable,
  stringEnum,
  stringSet,
  type ObjectMeta,
} from './schema.js';

/** The agent configuration a deployment was built from (the merge of the agent and svc.yaml). */
export const DeploymentConfig = Type.Object(
  {
    runtime: stringEnum(RUNTIMES, {
      description:
        "The language runtime the version is built and run with (the agent's, which never changes).",
    }),
    agentType: stringEnum(AGENT_TYPES, {
      description:
        'service (a long-lived HTTP server: the version becomes active once its workload is ready) or job (runs to completion once per run: the version becomes active once built).',
    }),
    entrypoint: Type.Optional(
      nullable(
        Type.String({
          description:
            "The file the runtime starts, relative to the archive's root; the build compile-checks it. Null for runtime dockerfile, where the image decides.",
        }),
      ),
    ),
    memoryMb: Type.Integer({
      minimum: 1,
      description:
        "Memory of the version's service and run containers, in MiB (request and limit; the CPU limit is one core per 2048 MiB, at least one).",
    }),
    regions: stringSet(
      "svc.yaml's regions, else the agent's, when the version was deployed; the first is given to its processes as SVC_REGION. A run's are its version's, or the first of the spawning agent's.",
    ),
    schedule: Type.Optional(
      nullable(
        Type.String({
          description:
            "The 5-field cron expression (UTC) the version was deployed with; copied to the agent's spec.schedule (which the operator acts on) when the version was accepted. Null for none.",
        }),
      ),
    ),
    keepAlive: Type.Optional(
      Type.Boolean({
        description:
          "keep_alive the version was deployed with; copied to the agent's spec.keepAlive (which the operator acts on) when the version was accepted.",
      }),
    ),
    /** The build sees the agent's secrets as environment variables (svc.yaml's `build_secrets`). */
    buildSecrets: Type.Optional(
      Type.Boolean({
        description:
          "svc.yaml's build_secrets: true gives the build the agent's secrets as environment variables (default false).",
      }),
    ),
    idleTimeoutMinutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "idle_timeout_minutes the version was deployed with; copied to the agent's spec.idleTimeoutMinutes (which the operator acts on) when the version was accepted.",
      }),
    ),
  },
  {
    description:
      "The configuration the version is built and run with: the agent's settings merged with the archive's svc.yaml at deploy (for a rollback, the configuration of the version rolled back to; for a run, a copy of its version's). Set by the API server at creation.",
  },
);
/** Spec field `config` of an {@link AgentDeployment}. */
export type DeploymentConfig = Static<typeof DeploymentConfig>;

/**
 * How far a code archive may expand, from the account's plan when it was
 * uploaded: the API server checked the archive against these, and a builder
 * unpacking it enforces them again.
 */
export const ArchiveLimits = Type.Object(
  {
    maxUnpackedBytes: Type.Integer({
      minimum: 1,
      description: 'Most bytes the files of the archive may total, once unpacked.',
    }),
    maxEntries: Type.Integer({
      minimum: 1,
      description: 'Most entries (files, directories, links) the archive may hold.',
    }),
    maxFileBytes: Type.Integer({ minimum: 1, description: 'Most bytes any one file may hold.' }),
  },
  {
    description:
      "How far the code archive may expand, from the account's plan when it was uploaded: the API server checked the archive against these, and the build's unpacking enforces them again. Absent on runs and on deployments rejected before their build; a builder then uses the largest default plan's limits.",
  },
);
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
export const AgentDeploymentSpec = Type.Object(
  {
    agentId: Type.String({
      format: 'uuid',
      description:
        'UUID (metadata.name) of the Agent this deployment belongs to, which also owns it: deleting the agent deletes it.',
    }),
    version: Type.Integer({
      minimum: 1,
      description:
        "The version number: 1, 2, 3, ... in the order the agent's deploys and rollbacks were recorded (rejected ones too), each taken once. A run carries the version it runs.",
    }),
    ephemeral: Type.Boolean({
      description:
        "is_ephemeral: true for a run (one execution of the agent's active version: manual, scheduled or spawned), false for a deployed version.",
    }),
    triggerSource: Type.Optional(
      stringEnum(TRIGGER_SOURCES, {
        description:
          "How a run was started: cron (the agent's schedule) or manual (the API, spawns included). Absent for a deployed version.",
      }),
    ),
    spawnedByAgentId: Type.Optional(
      nullable(
        Type.String({
          format: 'uuid',
          description:
            "For a run spawned by another agent: that agent's UUID (the run runs in its first region). Null otherwise.",
        }),
      ),
    ),
    archiveId: Type.Optional(
      nullable(
        Type.String({
          description:
            "Id of the code archive in the API server's archive store (MongoDB GridFS), from which the build fetches the code. Null for a run and for a deployment rejected before its build. The archive itself is deleted (the id stays) once the version is no longer among the agent's 3 most recent built ones.",
        }),
      ),
    ),
    rollbackOfVersion: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 1,
          description:
            'For a rollback: the version whose code and configuration this version redeploys; when it becomes active, the version it replaces ends rolled_back instead of superseded. Null otherwise.',
        }),
      ),
    ),
    archiveLimits: Type.Optional(ArchiveLimits),
    config: DeploymentConfig,
    cancellationRequested: Type.Optional(
      Type.Boolean({
        description:
          'Set to true by the API server when the owner cancels a version that has not finished; the operator stops its build and ends it failed. Runs are not cancelled this way.',
      }),
    ),
    cancellationReason: Type.Optional(
      nullable(
        Type.String({
          description:
            "The reason given with the cancellation ('cancelled by the user' when none); the operator's status.errorMessage quotes it.",
        }),
      ),
    ),
  },
  {
    description:
      'What the API server asks for: written by it when it accepts a deploy, rollback or run; do not edit by hand.',
  },
);
/** Spec of an {@link AgentDeployment}. */
export type AgentDeploymentSpec = Static<typeof AgentDeploymentSpec>;

/** Of a status field no component of this release writes. */
const UNWRITTEN = 'Not written by this release';

/** What the operator observed. */
export const AgentDeploymentStatus = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The metadata.generation the operator last wrote this status for.',
      }),
    ),
    conditions: Type.Optional(
      conditionList(
        'Standard conditions (metav1.Condition), written by the operator with each state; each change of Ready is also recorded as an Event (kubectl describe), a failure as a Warning. Ready: True while a version is active (reason Active) or once a run completed (Completed); otherwise False, its reason where the version or run stands (Queued, Building, Built: rolling out, Running: a run) or how it ended (BuildFailed, RolloutFailed, Cancelled, RunFailed, NotRun: a run that could not start, Failed: a deploy the API server rejected, Superseded, RolledBack). Built (versions only): Unknown while Queued or Building, True once the build succeeded (BuildSucceeded), False when the version failed before (BuildFailed, Cancelled, Failed).',
      ),
    ),
    state: Type.Optional(
      stringEnum(DEPLOYMENT_STATES, {
        description:
          'Where the version or run stands; absent means queued. A version: queued (waiting for a build slot), building, deploying (rolling out), then active (the version serving) or failed; superseded once a newer version takes over (rolled_back when the newer one is a rollback). A run: queued, deploying (running), then completed or failed. Written by the operator; the API server writes queued for a new run and failed for a deploy rejected before its build.',
      }),
    ),
    queuePosition: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 0,
          description:
            'While the version is queued: its place in the build queue, 1 being next (the operator builds the oldest first, as many at once as it is configured to). Null otherwise.',
        }),
      ),
    ),
    imageSizeMb: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 0,
          description:
            'Size of the built image or artifact in MB, written by the operator when the build reports one (neither workload driver reports it in this release).',
        }),
      ),
    ),
    regions: Type.Optional(
      stringSet(
        "A run's regions, written by the API server when it creates the run. Not written for a version (the API reports its placement).",
      ),
    ),
    pendingRegions: Type.Optional(
      stringSet(
        `Regions of the placement without a copy of the deployment yet (pending_regions). ${UNWRITTEN}: the API computes it from the regions' copies.`,
      ),
    ),
    regionsTotal: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `How many regions the deployment is placed in (regions_total). ${UNWRITTEN}: the API computes it from the placement.`,
      }),
    ),
    regionsReady: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: `How many regions have the version active (regions_ready). ${UNWRITTEN}: the API computes it from the regions' copies.`,
      }),
    ),
    pendingRegionAlertStage: Type.Optional(
      nullable(
        Type.String({
          description: `The contract's pending_region_alert_stage, reported as is (null when absent). ${UNWRITTEN}.`,
        }),
      ),
    ),
    isServing: Type.Optional(
      Type.Boolean({
        description:
          'True while this version is the active version of a service (the one its workload runs); false once it is replaced, and for a job. Written by the operator.',
      }),
    ),
    isDegraded: Type.Optional(
      Type.Boolean({
        description: `Whether the version serves degraded (is_degraded; the API reports false when absent). ${UNWRITTEN}.`,
      }),
    ),
    canRedeploy: Type.Optional(
      Type.Boolean({
        description:
          "Written true by the operator when the version becomes active and false by the API server for a deploy rejected before its build. The API's can_redeploy is computed instead: not a run, and the code archive still stored.",
      }),
    ),
    canRollback: Type.Optional(
      Type.Boolean({
        description:
          "Written false by the API server for a deploy rejected before its build. The API's can_rollback is computed instead: a version (not a run), built, not active, and its code archive still stored.",
      }),
    ),
    startedAt: Type.Optional(
      nullable(
        dateTime(
          "When a version's build started (it left the queue) or a run was started (RFC 3339). Written by the operator; by the API server for a deploy rejected before its build.",
        ),
      ),
    ),
    builtAt: Type.Optional(
      nullable(
        dateTime(
          "When the version's build succeeded and produced a runnable artifact or image (RFC 3339). Written by the operator.",
        ),
      ),
    ),
    deployedAt: Type.Optional(
      nullable(dateTime('When the version became active (RFC 3339). Written by the operator.')),
    ),
    finishedAt: Type.Optional(
      nullable(
        dateTime(
          'When the version ended failed, superseded or rolled_back, or the run completed or failed (RFC 3339); not set when a version becomes active. Written by the operator; by the API server for a deploy rejected before its build.',
        ),
      ),
    ),
    errorMessage: Type.Optional(
      nullable(
        Type.String({
          description:
            "Why the version or run failed: the build error, the rollout failure, the cancellation, the reason a deploy was rejected, or the run's own error. Null otherwise.",
        }),
      ),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "Warnings the API server found in the deploy (svc.yaml, the Dockerfile), one sentence each; also written to the agent's log.",
      }),
    ),
    jobId: Type.Optional(
      nullable(
        Type.String({
          description:
            "A run's job id (a UUID), returned as job_id when the run was accepted. Written by the API server; null for a version.",
        }),
      ),
    ),
    machineStartedAt: Type.Optional(
      nullable(
        dateTime(
          "When the run's machine (pod or process) started, as its workload driver reports it (RFC 3339). Runs only; written by the operator.",
        ),
      ),
    ),
    machineStoppedAt: Type.Optional(
      nullable(
        dateTime(
          "When the run's machine stopped (RFC 3339); the finish time when the driver does not report one. Runs only; written by the operator.",
        ),
      ),
    ),
    durationSeconds: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 0,
          description:
            'Whole seconds from machineStartedAt to machineStoppedAt (rounded). Runs only; written by the operator when the run finishes.',
        }),
      ),
    ),
  },
  {
    description:
      'What the operator observed of the version or run, plus the fields the API server writes when it creates one; do not edit by hand.',
  },
);
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
