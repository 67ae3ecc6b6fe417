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
  Conditions,
  dateTime,
  nullable,
  stringEnum,
  stringSet,
  type ObjectMeta,
} from './schema.js';

/** Agent names: the first label of the agent's address. */
export const AGENT_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** What the API server asks for. */
export const AgentSpec = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 56, pattern: AGENT_NAME_PATTERN }),
  userId: Type.String({ format: 'uuid', description: 'The owning account.' }),
  description: Type.Optional(nullable(Type.String())),
  agentType: stringEnum(AGENT_TYPES),
  tier: stringEnum(TIERS),
  runtime: stringEnum(RUNTIMES),
  memoryMb: Type.Integer({ minimum: 1 }),
  idleTimeoutMinutes: Type.Integer({ minimum: 0 }),
  keepAlive: Type.Boolean(),
  buildSecrets: Type.Optional(
    Type.Boolean({
      description: "svc.yaml's build_secrets: its builds see the agent's secrets (default false).",
    }),
  ),
  databaseCollection: Type.Optional(nullable(Type.String())),
  modelName: Type.Optional(nullable(Type.String())),
  entrypoint: Type.Optional(nullable(Type.String())),
  spawnEnabled: Type.Boolean(),
  allowedWorkers: stringSet(),
  parentAgentId: Type.Optional(nullable(Type.String({ format: 'uuid' }))),
  workspaceName: Type.Optional(nullable(Type.String())),
  regions: stringSet(),
  schedule: Type.Optional(
    nullable(Type.String({ description: '5-field cron expression, UTC (cron_schedule).' })),
  ),
  schedulePaused: Type.Optional(Type.Boolean({ description: 'cron_paused as the user set it.' })),
  scheduleResumedAt: Type.Optional(
    nullable(
      dateTime(
        'When the schedule was last resumed: its next run is computed from then, never backfilled.',
      ),
    ),
  ),
  desiredState: stringEnum(DESIRED_STATES, {
    description: 'running; paused by stop; archived by archive.',
  }),
  targetVersion: Type.Optional(
    nullable(
      Type.Integer({ minimum: 1, description: 'The deployment version that should serve.' }),
    ),
  ),
  addressLabel: Type.Optional(
    nullable(
      Type.String({
        maxLength: 63,
        description: '<name>-<6 random characters>, drawn at the first deploy and never changed.',
      }),
    ),
  ),
  updatedAt: dateTime(),
});
/** Spec of an {@link Agent}. */
export type AgentSpec = Static<typeof AgentSpec>;

/** One machine serving the agent, as last read from the workload driver. */
export const AgentMachine = Type.Object({
  id: Type.String(),
  region: Type.String(),
  state: Type.String(),
  health: Type.Optional(nullable(Type.String())),
  lastCheck: Type.Optional(nullable(dateTime())),
  instanceId: Type.Optional(nullable(Type.String())),
});
/** One entry of {@link AgentStatusBlock.machines}. */
export type AgentMachine = Static<typeof AgentMachine>;

/** What the operator observed. */
export const AgentStatusBlock = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  conditions: Type.Optional(Conditions),
  status: Type.Optional(stringEnum(AGENT_STATUSES)),
  deployed: Type.Optional(Type.Boolean()),
  url: Type.Optional(nullable(Type.String())),
  endpoint: Type.Optional(
    nullable(
      Type.String({
        description:
          'Where the edge routes to while the agent serves: host:port, or unix:/path for a Unix socket (the local driver).',
      }),
    ),
  ),
  activeVersion: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
  activeDeploymentId: Type.Optional(nullable(Type.String())),
  workloadVersion: Type.Optional(
    nullable(
      Type.Integer({
        minimum: 1,
        description:
          'The version whose workload the operator has seen exist; its disappearance is a loss.',
      }),
    ),
  ),
  servesWebsocket: Type.Optional(nullable(Type.Boolean())),
  failureCode: Type.Optional(
    stringEnum(FAILURE_CODES, { description: 'Absent when there is none.' }),
  ),
  failureMessage: Type.Optional(nullable(Type.String())),
  pendingRegions: Type.Optional(stringSet()),
  regionsTotal: Type.Optional(Type.Integer({ minimum: 0 })),
  regionsReady: Type.Optional(Type.Integer({ minimum: 0 })),
  isDegraded: Type.Optional(Type.Boolean()),
  degradedReason: Type.Optional(nullable(Type.String())),
  cronNextRunAt: Type.Optional(nullable(dateTime())),
  cronObservedSchedule: Type.Optional(
    nullable(Type.String({ description: 'The expression cronNextRunAt was computed for.' })),
  ),
  cronLastRunAt: Type.Optional(nullable(dateTime())),
  cronLastStatus: Type.Optional(nullable(Type.String())),
  cronLastReason: Type.Optional(nullable(Type.String())),
  machines: Type.Optional(Type.Array(AgentMachine)),
  machinesObservedAt: Type.Optional(nullable(dateTime())),
});
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
