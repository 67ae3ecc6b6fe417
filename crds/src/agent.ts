/**
 * The `Agent` custom resource: one per agent, named by the agent's UUID, in its
 * account's namespace. `spec` holds the agent's settings as the API server
 * writes them; `status` holds what the operator observes. Every field of the
 * contract's Agent record maps to one here (`id` is `metadata.name`,
 * `created_at` is `metadata.creationTimestamp`).
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  DESIRED_STATES,
  FAILURE_CODES,
  RUNTIMES,
  TIERS,
} from './enums.js';
import {
  conditionList,
  dateTime,
  nullable,
  stringEnum,
  stringSet,
  type ObjectMeta,
} from './schema.js';

/** Agent names: the first label of the agent's address. */
export const AGENT_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** What the API server asks for. */
export const AgentSpec = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 56,
      pattern: AGENT_NAME_PATTERN,
      description:
        "The agent's name: lowercase letters and digits in words joined by single hyphens, at most 56 characters, unique among the agents of its namespace. Also the svc.dev/agent-name label. A rename keeps the agent's UUID and address.",
    }),
    userId: Type.String({
      format: 'uuid',
      description: 'UUID of the account that owns the agent. Set by the API server at creation.',
    }),
    description: Type.Optional(
      nullable(
        Type.String({
          description: 'Free text the owner gave the agent (up to 2000 characters); null for none.',
        }),
      ),
    ),
    agentType: stringEnum(AGENT_TYPES, {
      description:
        'service: a long-lived HTTP server reached through the edge at status.url, scaled to zero when idle. job: a program that runs to completion once per run (manual, scheduled or spawned).',
    }),
    tier: stringEnum(TIERS, {
      description:
        "The plan tier recorded on the agent (free, starter, performance or enterprise; free unless the request names one). Reported by the API; plan limits are checked against the account's tier, not this field.",
    }),
    runtime: stringEnum(RUNTIMES, {
      description:
        'The language runtime the agent is built and run with; dockerfile builds the Dockerfile at the root of the code archive. Fixed once the agent exists.',
    }),
    memoryMb: Type.Integer({
      minimum: 1,
      description:
        "Memory of each of the agent's containers, in MiB (request and limit; the CPU limit is one core per 2048 MiB, at least one). Within the account plan's bounds. A change takes effect at the next deploy (spec.config.memoryMb of the AgentDeployment).",
    }),
    idleTimeoutMinutes: Type.Integer({
      minimum: 0,
      description:
        'Minutes without a request after which the operator scales a service to zero replicas (the next request through the edge wakes it). 0 never scales it down; ignored when keepAlive is true.',
    }),
    keepAlive: Type.Boolean({
      description:
        'True keeps a service running even when idle (never scaled to zero). Not allowed on a job.',
    }),
    buildSecrets: Type.Optional(
      Type.Boolean({
        description:
          "svc.yaml's build_secrets: the agent's builds see its secrets as environment variables (default false). Set at each deploy; the build reads its AgentDeployment's spec.config.buildSecrets.",
      }),
    ),
    databaseCollection: Type.Optional(
      nullable(
        Type.String({
          description:
            'A collection name the owner recorded with the agent (database_collection, up to 255 characters); stored and reported back, not used by the operator. Null for none.',
        }),
      ),
    ),
    modelName: Type.Optional(
      nullable(
        Type.String({
          description:
            'A model name the owner recorded with the agent (model_name, up to 255 characters); stored and reported back, not used by the operator. Null for none.',
        }),
      ),
    ),
    entrypoint: Type.Optional(
      nullable(
        Type.String({
          description:
            "The file the runtime starts, relative to the code archive's root; null until set or deployed (a deploy fills in the runtime's default: main.py, index.js or index.ts). Always null for runtime dockerfile, where the image decides.",
        }),
      ),
    ),
    spawnEnabled: Type.Boolean({
      description:
        'True lets the agent spawn runs of the job agents of its account (POST /api/v1/agents/{agent}/spawn), limited by allowedWorkers.',
    }),
    allowedWorkers: stringSet(
      'Names or UUIDs of the job agents this agent may spawn when spawnEnabled is true; empty allows any job agent of the account.',
    ),
    parentAgentId: Type.Optional(
      nullable(
        Type.String({
          format: 'uuid',
          description:
            "The contract's parent_agent_id, reported as is. The API server writes null and nothing sets it; a spawned run names its parent in the AgentDeployment's spec.spawnedByAgentId instead.",
        }),
      ),
    ),
    workspaceName: Type.Optional(
      nullable(
        Type.String({
          description:
            "The name (not the id) of the Workspace in this namespace the agent belongs to: the agent gets the workspace's secrets as environment variables (its own win on a shared key) and, when created, the workspace's regions. Null for none.",
        }),
      ),
    ),
    regions: stringSet(
      "Regions the agent runs in: its workspace's, or those of the create request (the account's home region by default), then svc.yaml's regions at each deploy. The operator reports their count in status.regionsTotal; the clusters holding the agent's copies are listed in its svc.dev/regions annotation.",
    ),
    schedule: Type.Optional(
      nullable(
        Type.String({
          description:
            'Normalised 5-field cron expression, in UTC (cron_schedule), set from svc.yaml at deploy: the operator fires a run (trigger cron) at each match (through a CronJob on Kubernetes), never catching up a missed one. Null for no schedule.',
        }),
      ),
    ),
    schedulePaused: Type.Optional(
      Type.Boolean({
        description:
          'cron_paused as the owner set it: true suspends the schedule (no runs fire, status.cronNextRunAt is null) without removing it.',
      }),
    ),
    scheduleResumedAt: Type.Optional(
      nullable(
        dateTime(
          'When the schedule was last resumed (RFC 3339): its next run is computed from then, never backfilled.',
        ),
      ),
    ),
    desiredState: stringEnum(DESIRED_STATES, {
      description:
        'What the owner asks of the agent: running (the default; set again by start, restore and every deploy), paused (stop: a service scaled to zero, the schedule suspended) or archived (archive: the operator removes its workload and schedule until a restore).',
    }),
    targetVersion: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 1,
          description:
            'The version of the deploy or rollback the API server accepted last; null before the first. Until the operator reports status.activeDeploymentId, the API runs this version once its AgentDeployment is active. The operator serves the newest active version.',
        }),
      ),
    ),
    addressLabel: Type.Optional(
      nullable(
        Type.String({
          maxLength: 63,
          description:
            "The first DNS label of a service's address (status.url): <name>-<6 random characters>, drawn at the first deploy of a service and never changed, also by a rename. Null before then and for a job.",
        }),
      ),
    ),
    updatedAt: dateTime(
      'When the API server last changed this spec (RFC 3339); the API reports it as updated_at.',
    ),
  },
  {
    description:
      "The agent's settings: written by the API server from the platform API and each deploy's svc.yaml; do not edit by hand.",
  },
);
/** Spec of an {@link Agent}. */
export type AgentSpec = Static<typeof AgentSpec>;

/**
 * One machine serving the agent. The API server reads its machines live from
 * the pods and falls back on this list when it cannot; nothing writes it yet.
 */
export const AgentMachine = Type.Object(
  {
    id: Type.String({ description: 'Name of the machine (its pod).' }),
    region: Type.String({ description: 'Region the machine runs in.' }),
    state: Type.String({
      description: "The machine's phase in lowercase, e.g. running or pending.",
    }),
    health: Type.Optional(
      nullable(
        Type.String({
          description: 'passing when the machine is ready, critical when not; null when unknown.',
        }),
      ),
    ),
    lastCheck: Type.Optional(
      nullable(dateTime('When the machine was observed (RFC 3339); null when unknown.')),
    ),
    instanceId: Type.Optional(
      nullable(
        Type.String({ description: "The machine's own id (the pod's UID); null when unknown." }),
      ),
    ),
  },
  { description: 'One machine (pod) that served the agent when it was last observed.' },
);
/** One entry of {@link AgentStatusBlock.machines}. */
export type AgentMachine = Static<typeof AgentMachine>;

/** Of a status field no component of this release writes. */
const UNWRITTEN = 'Not written by this release';

/** What the operator observed. */
export const AgentStatusBlock = Type.Object(
  {
    observedGeneration: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'The metadata.generation the operator last wrote this status for.',
      }),
    ),
    conditions: Type.Optional(
      conditionList(
        'Standard conditions (metav1.Condition), written by the operator; each change of Ready, and a service scaled to zero or woken while running, is also recorded as an Event (kubectl describe). Ready: True while status is running; its reason is the status in CamelCase (Pending, Building, Deploying, Running, Paused, UsagePaused, Failed, Archived), or WorkloadLost when the workload vanished. WorkloadAvailable (services only): True when the workload runs the version being served and is ready (reason Available), or is scaled to no replica (ScaledToZero: idle, paused or usage_paused); False while a version rolls out (RollingOut) or after archiving (Archived).',
      ),
    ),
    status: Type.Optional(
      stringEnum(AGENT_STATUSES, {
        description:
          "The agent's status as the API reports it, derived by the operator: pending (nothing deployed yet), building (no active version; the newest is queued or building), deploying (a version is rolling out), running, paused (desiredState paused), usage_paused (the account is over a hard usage limit of its plan), failed (no active version and the newest failed, or the workload was lost), archived (desiredState archived). stopped, suspended, deleting and deleted are contract values the operator does not write. Absent until the operator's first reconcile (the API reports pending).",
      }),
    ),
    deployed: Type.Optional(
      Type.Boolean({
        description:
          'True while the agent has an active version, is not archived and its workload is not lost. Written by the operator; the API server counts deployed agents against the plan.',
      }),
    ),
    url: Type.Optional(
      nullable(
        Type.String({
          description:
            "The service's public address, <scheme>://<spec.addressLabel>.<agent domain>[:port], while it is deployed; null for a job or an undeployed agent. Written by the operator.",
        }),
      ),
    ),
    endpoint: Type.Optional(
      nullable(
        Type.String({
          description:
            'Where the edge routes to while the agent serves: host:port of its Service (the Kubernetes driver), or unix:/path of a Unix socket (the local driver). Null while it does not serve (not ready, scaled to zero, a job). Written by the operator.',
        }),
      ),
    ),
    activeVersion: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 1,
          description:
            'The highest version whose AgentDeployment is active; null when none is. Written by the operator.',
        }),
      ),
    ),
    activeDeploymentId: Type.Optional(
      nullable(
        Type.String({
          description:
            'metadata.name (UUID) of the AgentDeployment of activeVersion; null when none is active. The API server runs this version for a run. Written by the operator.',
        }),
      ),
    ),
    workloadVersion: Type.Optional(
      nullable(
        Type.Integer({
          minimum: 1,
          description:
            "The active version the operator last saw the service's workload run; null after archiving. If that workload then disappears while no newer version rolls out, the operator reports failureCode app_lost_on_provider.",
        }),
      ),
    ),
    servesWebsocket: Type.Optional(
      nullable(
        Type.Boolean({
          description:
            'Set to true by the API server (its edge) the first time the agent answers a WebSocket upgrade; never reset. Absent before.',
        }),
      ),
    ),
    failureCode: Type.Optional(
      stringEnum(FAILURE_CODES, {
        description:
          "Why the agent failed, as a code: app_lost_on_provider when its service's workload disappeared on its own (redeploy to restore it). Absent when there is none. Written by the operator.",
      }),
    ),
    failureMessage: Type.Optional(
      nullable(
        Type.String({
          description:
            'A sentence explaining failureCode; null when there is none. Written by the operator.',
        }),
      ),
    ),
    pendingRegions: Type.Optional(
      stringSet(
        `Regions where the agent is not ready yet (pending_regions; the API reports [] when absent). ${UNWRITTEN}.`,
      ),
    ),
    regionsTotal: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Number of the agent's regions (spec.regions). Written by the operator of each region.",
      }),
    ),
    regionsReady: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Number of regions where the agent is deployed, as one region's operator sees it: regionsTotal while deployed, else 0.",
      }),
    ),
    isDegraded: Type.Optional(
      Type.Boolean({
        description: `Whether the agent runs degraded (is_degraded; the API reports false when absent). ${UNWRITTEN}.`,
      }),
    ),
    degradedReason: Type.Optional(
      nullable(
        Type.String({
          description: `Why the agent is degraded (degraded_reason; the API reports null when absent). ${UNWRITTEN}.`,
        }),
      ),
    ),
    cronNextRunAt: Type.Optional(
      nullable(
        dateTime(
          'When the schedule fires next (RFC 3339, UTC); null without a schedule or while it is paused. Computed by the operator; it moves only when the expression changes, the schedule resumes or the time passes.',
        ),
      ),
    ),
    cronObservedSchedule: Type.Optional(
      nullable(
        Type.String({
          description:
            'The schedule expression cronNextRunAt was computed for; null without a schedule. Written by the operator.',
        }),
      ),
    ),
    cronLastRunAt: Type.Optional(
      nullable(
        dateTime(
          "When the schedule last fired a run (that run's creation time, RFC 3339); null before the first. Written by the operator.",
        ),
      ),
    ),
    cronLastStatus: Type.Optional(
      nullable(
        Type.String({
          description:
            "The state of that run, as the run's own status.state: queued, deploying, then completed or failed. Written by the operator.",
        }),
      ),
    ),
    cronLastReason: Type.Optional(
      nullable(
        Type.String({
          description:
            'Why that run failed (its status.errorMessage); null otherwise. Written by the operator.',
        }),
      ),
    ),
    machines: Type.Optional(
      Type.Array(AgentMachine, {
        description: `The machines serving the agent as last stored, which the API's status route shows (marked cached) when it cannot read the pods live. ${UNWRITTEN}.`,
      }),
    ),
    machinesObservedAt: Type.Optional(
      nullable(
        dateTime(
          `When machines was observed (RFC 3339); the fallback of a machine's lastCheck. ${UNWRITTEN}.`,
        ),
      ),
    ),
  },
  {
    description:
      "What the operator observed of the agent, plus servesWebsocket (the API server's edge). Read by the API to answer for the agent; do not edit by hand.",
  },
);
/** Status of an {@link Agent}. */
export type AgentStatusBlock = Static<typeof AgentStatusBlock>;

/** An `Agent` object as read from or written to the Kubernetes API. */
export interface Agent {
  apiVersion: 'svc.dev/v1alpha1';
  kind: 'Agent';
  metadata: ObjectMeta;
  spec: AgentSpec;
  status?: AgentStatusBlock;
}
