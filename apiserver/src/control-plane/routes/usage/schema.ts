/** Schemas of the usage routes: queries the routes validate with, records the document shows. */
import * as yup from 'yup';
import { USAGE_KINDS } from '../../../usage/model.js';
import { isoDateTime } from '../../../validation/date-time.js';

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });
// Not yup's datetime() alone: it passed `?to=` and a month 13, each an Invalid Date and a 500.
const queryDate = (description: string) => isoDateTime().optional().meta({ description });

/** The most events one page holds. */
export const MAX_USAGE_PAGE = 500;

/** Query of `GET /api/v1/usage/summary`. */
export const UsageSummaryQuery = yup.object({
  from: queryDate('Start of the period (inclusive); default the start of the current month (UTC).'),
  to: queryDate('End of the period (exclusive); default now.'),
});

/** Path of `GET /api/v1/usage/agent/{agent_id}/events`. */
export const UsageAgentParams = yup.object({
  agent_id: yup
    .string()
    .min(1)
    .max(255)
    .required()
    .meta({ description: 'The agent UUID or name.' }),
});

const kindItem = `(?:${USAGE_KINDS.join('|')})`;

/** Query of `GET /api/v1/usage/agent/{agent_id}/events`. */
export const UsageEventsQuery = yup.object({
  kind: yup
    .string()
    .transform((value: unknown, original: unknown) =>
      Array.isArray(original) ? original.join(',') : value,
    )
    .matches(new RegExp(`^${kindItem}(?:,${kindItem})*$`), {
      message: '${path} must be a comma-separated list of ' + USAGE_KINDS.join(', '),
    })
    .optional()
    .meta({ description: `Only these kinds, comma-separated: ${USAGE_KINDS.join(', ')}.` }),
  from: queryDate('Only events that ended at or after this.'),
  to: queryDate('Only events that ended before this.'),
  limit: yup
    .number()
    .integer()
    .min(1)
    .max(MAX_USAGE_PAGE)
    .optional()
    .default(100)
    .meta({ description: `Page size (1-${MAX_USAGE_PAGE}).` }),
  cursor: yup
    .string()
    .max(400)
    .optional()
    .meta({ description: 'next_cursor of the previous page, to read on (older events).' }),
});

const num = (description?: string) =>
  yup
    .number()
    .required()
    .meta(description ? { description } : {});

/** Totals of one kind. */
export const UsageTotalsRecord = yup.object({
  events: num('Events recorded (requests are recorded as one event per minute).'),
  count: num('Machines, runs, builds or requests.'),
  seconds: num('Wall seconds (compute, run, build).'),
  mb_seconds: num('Memory × seconds (compute).'),
  bytes: num('Bytes in and out (edge requests).'),
  peak_storage_mb: num('Highest vector storage sampled (vector_storage).'),
});

const totalsByKind = () =>
  yup
    .object(
      Object.fromEntries(
        USAGE_KINDS.map((k) => [k, UsageTotalsRecord.clone().default(undefined).optional()]),
      ),
    )
    .required();

/** The UsageSummary record. */
export const UsageSummaryRecord = yup.object({
  account_id: yup.string().uuid().required(),
  plan: yup.string().required(),
  period: yup
    .object({
      from: dateTime().required(),
      to: dateTime().required(),
      current: yup
        .boolean()
        .required()
        .meta({ description: 'The period is the current month, which the limits apply to.' }),
    })
    .required(),
  totals: totalsByKind().meta({ description: 'Per kind, every kind present.' }),
  agents: yup
    .array(
      yup.object({
        agent_id: yup.string().required(),
        totals: totalsByKind().meta({ description: 'Per kind, only the kinds the agent used.' }),
      }),
    )
    .required(),
  limits: yup
    .array(
      yup.object({
        metric: yup
          .string()
          .oneOf(['compute_mb_seconds', 'runs', 'builds', 'edge_requests', 'edge_bytes'])
          .required(),
        used: num(),
        limit: yup.number().nullable().defined().meta({ description: 'Null means unlimited.' }),
        exceeded: yup.boolean().required(),
      }),
    )
    .required()
    .meta({ description: "The plan's monthly hard limits and the period's use of them." }),
});

/** The UsageEvent record. */
export const UsageEventRecord = yup.object({
  id: yup.string().required(),
  agent_id: yup.string().nullable().defined(),
  deployment_id: yup.string().nullable().defined(),
  kind: yup
    .string()
    .oneOf([...USAGE_KINDS])
    .required(),
  started_at: dateTime().required(),
  ended_at: dateTime().required(),
  count: num(),
  seconds: num(),
  memory_mb: num(),
  mb_seconds: num(),
  bytes: num(),
  storage_mb: num(),
});

/** A page of UsageEvent records, newest first. */
export const UsageEventPage = yup.object({
  agent_id: yup.string().required(),
  events: yup
    .array(yup.mixed().meta({ openapi: { $ref: '#/components/schemas/UsageEvent' } }))
    .required(),
  next_cursor: yup
    .string()
    .nullable()
    .defined()
    .meta({ description: 'Pass as cursor for the next (older) page; null on the last page.' }),
});

/** Body of the operator's `POST /internal/usage`. */
export const UsageReport = yup.object({
  events: yup
    .array(
      yup.object({
        id: yup.string().max(200).required(),
        account_id: yup.string().max(100).required(),
        environment: yup.string().oneOf(['live', 'test']).required(),
        agent_id: yup.string().max(100).nullable().defined(),
        deployment_id: yup.string().max(100).nullable().optional(),
        kind: yup.string().oneOf(['compute', 'run', 'build']).required(),
        started_at: isoDateTime().required(),
        ended_at: isoDateTime().required(),
        memory_mb: yup.number().min(0).optional(),
      }),
    )
    .max(1000)
    .required(),
});
