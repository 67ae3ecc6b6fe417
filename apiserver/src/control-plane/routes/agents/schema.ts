/**
 * Request and response schemas of the agent routes. The routes validate with
 * these and the OpenAPI document is generated from them.
 */
import * as yup from 'yup';
import { pageEnvelope, pageQueryFields } from '../paging.js';
import {
  AGENT_STATUSES,
  AGENT_TYPES,
  RUNTIMES,
  TIERS,
  type AgentType,
  type Runtime,
  type Tier,
} from '../../../../../crds/src/index.js';
import {
  AGENT_NAME_MAX,
  AGENT_NAME_REGEX,
  isUuid,
  RESERVED_AGENT_NAMES,
} from '../../../agents/names.js';

const agentName = () =>
  yup
    .string()
    .min(1)
    .max(AGENT_NAME_MAX)
    .matches(AGENT_NAME_REGEX, {
      message:
        '${path} may hold lowercase letters, digits and single hyphens, and must start and end with a letter or digit',
    })
    .test(
      'reserved-name',
      '${path} is a reserved word',
      (v) => v === undefined || v === null || !RESERVED_AGENT_NAMES.has(v),
    )
    .test(
      'uuid-name',
      '${path} must not look like a UUID',
      (v) => v === undefined || v === null || !isUuid(v),
    );

const entrypoint = () =>
  yup
    .string()
    .min(1)
    .max(255)
    .test('relative-path', '${path} must be a relative path inside the archive', (v) =>
      v === undefined || v === null ? true : !v.startsWith('/') && !v.split('/').includes('..'),
    );

const oneOf = <T extends string>(values: readonly T[]) => yup.mixed<T>().oneOf([...values]);

/** keep_alive is meaningless on a job, which runs once per request and exits. */
function keepAliveNeedsService(
  this: yup.TestContext,
  value: { agent_type?: AgentType | null; keep_alive?: boolean | null } | undefined,
) {
  if (value?.keep_alive === true && value.agent_type === 'job') {
    return this.createError({
      path: 'keep_alive',
      message: 'keep_alive is not allowed on a job agent',
    });
  }
  return true;
}

/** AgentCreate. Defaults are applied by the service (bodies are validated strictly). */
export const AgentCreate = yup
  .object({
    name: agentName().required(),
    description: yup.string().max(2000).nullable().optional(),
    agent_type: oneOf(AGENT_TYPES).optional().default('service'),
    tier: oneOf(TIERS).optional().default('free'),
    runtime: oneOf(RUNTIMES).optional().default('python3.11'),
    memory_mb: yup.number().integer().min(1).optional().default(256),
    idle_timeout_minutes: yup.number().integer().min(0).optional().default(5),
    keep_alive: yup.boolean().optional().default(false),
    database_collection: yup.string().max(255).nullable().optional(),
    model_name: yup.string().max(255).nullable().optional(),
    entrypoint: entrypoint().nullable().optional(),
    spawn_enabled: yup.boolean().optional().default(false),
    allowed_workers: yup.array(yup.string().min(1).max(255).required()).max(100).optional(),
    workspace_name: yup.string().min(3).max(63).nullable().optional(),
    regions: yup
      .array(yup.string().min(1).max(63).required())
      .min(1)
      .max(20)
      .optional()
      .meta({ description: 'Extension: regions to run in; defaults to the account home region.' }),
  })
  .required()
  .test('keep-alive-job', 'keep_alive is not allowed on a job agent', keepAliveNeedsService)
  .meta({ description: 'Creates an agent. Does not deploy it.' });
/** A validated AgentCreate body. */
export type AgentCreateBody = yup.InferType<typeof AgentCreate>;

/** AgentUpdate: every field optional and nullable; omitted fields are untouched. */
export const AgentUpdate = yup
  .object({
    name: agentName().nullable().optional(),
    description: yup.string().max(2000).nullable().optional(),
    agent_type: oneOf(AGENT_TYPES).nullable().optional(),
    tier: oneOf(TIERS).nullable().optional(),
    runtime: oneOf(RUNTIMES).nullable().optional(),
    memory_mb: yup.number().integer().min(1).nullable().optional(),
    idle_timeout_minutes: yup.number().integer().min(0).nullable().optional(),
    keep_alive: yup.boolean().nullable().optional(),
    database_collection: yup.string().max(255).nullable().optional(),
    model_name: yup.string().max(255).nullable().optional(),
    entrypoint: entrypoint().nullable().optional(),
    spawn_enabled: yup.boolean().nullable().optional(),
    allowed_workers: yup
      .array(yup.string().min(1).max(255).required())
      .max(100)
      .nullable()
      .optional(),
    workspace_name: yup.string().min(3).max(63).nullable().optional(),
  })
  .required()
  .meta({
    description:
      'Every field optional; omitted fields are untouched. null clears description, database_collection, model_name, entrypoint and workspace_name (leaving the workspace); on other fields null leaves them unchanged. Changes apply on the next deploy.',
  });
/** A validated AgentUpdate body. */
export type AgentUpdateBody = yup.InferType<typeof AgentUpdate>;

/** Path parameter `{agent}`: a UUID or a name. */
export const AgentParams = yup.object({
  agent: yup.string().min(1).max(255).required().meta({ description: 'The agent UUID or name.' }),
});

/** Query of `GET /api/v1/agents`. */
export const AgentListQuery = yup.object({
  ...pageQueryFields(),
  status: oneOf(AGENT_STATUSES).optional().meta({ description: 'Only agents with this status.' }),
  agent_type: oneOf(AGENT_TYPES).optional(),
  workspace_name: yup.string().optional().meta({ description: 'Only agents of this workspace.' }),
});
/** A validated list query. */
export type AgentListQueryValue = yup.InferType<typeof AgentListQuery>;

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** The Agent record (documentation of responses). */
export const AgentRecord = yup.object({
  id: yup.string().uuid().required(),
  user_id: yup.string().uuid().required(),
  name: yup.string().max(AGENT_NAME_MAX).required(),
  description: yup.string().nullable().defined(),
  agent_type: oneOf(AGENT_TYPES).required(),
  tier: oneOf(TIERS).required(),
  runtime: oneOf(RUNTIMES).required(),
  memory_mb: yup.number().integer().required(),
  idle_timeout_minutes: yup.number().integer().required(),
  keep_alive: yup.boolean().required(),
  serves_websocket: yup.boolean().nullable().defined(),
  status: oneOf(AGENT_STATUSES).required(),
  database_collection: yup.string().nullable().defined(),
  model_name: yup.string().nullable().defined(),
  entrypoint: yup.string().nullable().defined(),
  spawn_enabled: yup.boolean().required(),
  allowed_workers: yup.array(yup.string().required()).required(),
  parent_agent_id: yup.string().uuid().nullable().defined(),
  workspace_name: yup.string().nullable().defined(),
  deployed: yup.boolean().required(),
  url: yup.string().nullable().defined(),
  regions: yup.array(yup.string().required()).required(),
  pending_regions: yup.array(yup.string().required()).required(),
  regions_total: yup.number().integer().required(),
  regions_ready: yup.number().integer().required(),
  is_degraded: yup.boolean().required(),
  degraded_reason: yup.string().nullable().defined(),
  failure_code: yup.string().nullable().defined(),
  failure_message: yup.string().nullable().defined(),
  cron_schedule: yup.string().nullable().defined(),
  cron_next_run_at: dateTime().nullable().defined(),
  cron_paused: yup.boolean().required(),
  cron_last_run_at: dateTime()
    .nullable()
    .defined()
    .meta({ description: 'When the schedule last fired a run; null before the first.' }),
  cron_last_status: yup.string().nullable().defined().meta({
    description:
      "The state of that run, as the run's own state: queued, deploying, then completed or failed.",
  }),
  cron_last_reason: yup
    .string()
    .nullable()
    .defined()
    .meta({ description: 'Why that run failed (its error_message); null otherwise.' }),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
});
/** An Agent record as returned. */
export interface AgentRecordValue {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  agent_type: AgentType;
  tier: Tier;
  runtime: Runtime;
  memory_mb: number;
  idle_timeout_minutes: number;
  keep_alive: boolean;
  serves_websocket: boolean | null;
  status: (typeof AGENT_STATUSES)[number];
  database_collection: string | null;
  model_name: string | null;
  entrypoint: string | null;
  spawn_enabled: boolean;
  allowed_workers: string[];
  parent_agent_id: string | null;
  workspace_name: string | null;
  deployed: boolean;
  url: string | null;
  regions: string[];
  pending_regions: string[];
  regions_total: number;
  regions_ready: number;
  is_degraded: boolean;
  degraded_reason: string | null;
  failure_code: string | null;
  failure_message: string | null;
  cron_schedule: string | null;
  cron_next_run_at: string | null;
  cron_paused: boolean;
  cron_last_run_at: string | null;
  cron_last_status: string | null;
  cron_last_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** The list envelope of `GET /api/v1/agents`. */
export const AgentList = pageEnvelope('Agent');

/** The 202 body of stop, start, archive, restore and delete. */
export const AgentAction = yup.object({
  id: yup.string().uuid().required(),
  name: yup.string().required(),
  status: yup
    .string()
    .oneOf(['paused', 'starting', 'archiving', 'restoring', 'deleting'])
    .required()
    .meta({ description: 'A status label, not always an agent status.' }),
});

/** One machine of AgentStatusDetail. */
export const Machine = yup.object({
  id: yup.string().required(),
  region: yup.string().required(),
  state: yup.string().required(),
  source: yup.string().oneOf(['live', 'cached']).required(),
  health: yup.string().nullable().defined(),
  last_check: dateTime().nullable().defined(),
  instance_id: yup.string().nullable().defined(),
});

/** AgentStatusDetail. */
export const AgentStatusDetail = yup.object({
  agent_id: yup.string().uuid().required(),
  name: yup.string().required(),
  status: oneOf(AGENT_STATUSES).required(),
  url: yup.string().nullable().defined(),
  machines: yup.array(Machine).required(),
});

/**
 * The svc.yaml view of an agent (`GET /api/v1/agents/{agent}/yaml`), as a
 * YAML parser reads the text: the keys a configuration file may hold.
 */
export const AgentConfigFile = yup
  .object({
    name: yup.string().max(AGENT_NAME_MAX).required(),
    runtime: oneOf(RUNTIMES).required(),
    type: oneOf(AGENT_TYPES).required(),
    entrypoint: yup
      .string()
      .optional()
      .meta({ description: 'Absent for runtime dockerfile, where the image decides what runs.' }),
    memory_mb: yup.number().integer().required(),
    regions: yup.array(yup.string().required()).required(),
    schedule: yup
      .string()
      .optional()
      .meta({ description: '5-field cron expression, UTC; absent when there is no schedule.' }),
  })
  .noUnknown()
  .meta({
    description:
      "An agent's svc.yaml. Strings that a YAML 1.1 parser would read as another type (yes, no, on, 2024-01-01) are quoted, so YAML 1.1 and 1.2 parsers alike read the same values.",
  });
