/** Request and response schemas of the run, schedule and spawn routes. */
import * as yup from 'yup';
import { pageEnvelope, pageQueryFields } from '../paging.js';

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });
const anyObject = () =>
  yup
    .mixed<Record<string, unknown>>()
    .test(
      'object',
      '${path} must be an object or null',
      (v) => v === undefined || v === null || (typeof v === 'object' && !Array.isArray(v)),
    )
    .meta({ openapi: { type: ['object', 'null'], additionalProperties: true } });

/** RunRequest. */
export const RunRequest = yup
  .object({
    payload: anyObject()
      .nullable()
      .optional()
      .meta({ description: 'Read back by the run at GET /api/v1/deployments/{id}/payload.' }),
  })
  .optional();

/** RunAccepted. */
export const RunAccepted = yup.object({
  deployment_id: yup.string().uuid().required(),
  version: yup.number().integer().required(),
  job_id: yup.string().uuid().required(),
});

/** Query of the run list. */
export const RunListQuery = yup.object(pageQueryFields());

/** The Run record. */
export const RunRecord = yup.object({
  id: yup.string().uuid().required(),
  trigger_source: yup.string().oneOf(['cron', 'manual']).required(),
  state: yup.string().required(),
  created_at: dateTime().required(),
  error_message: yup.string().nullable().defined(),
  machine_started_at: dateTime().nullable().defined(),
  machine_stopped_at: dateTime().nullable().defined(),
  duration_seconds: yup.number().integer().nullable().defined(),
});

/** A page of runs. */
export const RunList = pageEnvelope('Run');

/** ScheduleState. */
export const ScheduleState = yup.object({
  cron_paused: yup.boolean().required(),
  cron_next_run_at: dateTime().nullable().defined(),
  changed: yup.boolean().required(),
});

/** SpawnRequest. */
export const SpawnRequest = yup
  .object({
    child_agent_id: yup
      .string()
      .min(1)
      .max(255)
      .required()
      .meta({ description: 'UUID or name of a job agent.' }),
    payload: anyObject().nullable().optional(),
  })
  .required();

/** SpawnResponse. */
export const SpawnResponse = yup.object({
  spawn_id: yup.string().uuid().required(),
  job_id: yup.string().uuid().required(),
  child_agent_id: yup.string().uuid().required(),
  workspace: yup.string().nullable().defined(),
  region: yup.string().required(),
  status: yup.string().required(),
  estimated_start: yup.string().required(),
});
