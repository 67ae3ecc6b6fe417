/**
 * Request and response schemas of the log routes: reading an agent's log in
 * keyset pages, and the operator's ingestion of lines. The routes validate
 * with these and the OpenAPI document is generated from them.
 */
import * as yup from 'yup';
import type { Environment } from '../../../accounts/model.js';
import { LOG_LEVELS, LOG_STREAMS, MAX_MESSAGE_BYTES } from '../../../logs/log-lines.js';
import { MAX_APPEND_BATCH, MAX_PAGE_SIZE } from '../../../logs/log-store.js';
import { isoDateTime } from '../../../validation/date-time.js';

const oneOf = <T extends string>(values: readonly T[]) => yup.mixed<T>().oneOf([...values]);
const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** A comma-separated list of `values`; a repeated parameter is read as one list. */
const commaList = (values: readonly string[], description: string) => {
  const item = `(?:${values.join('|')})`;
  return yup
    .string()
    .transform((value: unknown, original: unknown) =>
      Array.isArray(original) ? original.join(',') : value,
    )
    .matches(new RegExp(`^${item}(?:,${item})*$`), {
      message: '${path} must be a comma-separated list of ' + values.join(', '),
    })
    .optional()
    .meta({ description });
};

const cursor = (description: string) =>
  yup.number().integer().min(0).max(Number.MAX_SAFE_INTEGER).optional().meta({ description });

/** Path parameter `{agent}`: a UUID or a name. */
export const LogAgentParams = yup.object({
  agent: yup.string().min(1).max(255).required().meta({ description: 'The agent UUID or name.' }),
});

/** Query of `GET /api/v1/agents/{agent}/logs`. */
export const LogQuery = yup
  .object({
    after_id: cursor(
      'Read forward: the oldest entries with an id greater than this (follow a log with next_after_id). Not with before_id.',
    ),
    before_id: cursor(
      'Read backward: the newest entries with an id smaller than this (scroll back with next_before_id). Not with after_id.',
    ),
    limit: yup
      .number()
      .integer()
      .min(1)
      .max(MAX_PAGE_SIZE)
      .optional()
      .default(100)
      .meta({ description: `Page size (1-${MAX_PAGE_SIZE}).` }),
    stream: commaList(LOG_STREAMS, 'Only these streams, comma-separated: stdout,stderr,system.'),
    level: commaList(
      LOG_LEVELS,
      'Only these levels, comma-separated: INFO,WARN,ERROR,DEBUG,SYSTEM.',
    ),
    since: isoDateTime()
      .optional()
      .meta({ description: 'Only entries whose timestamp is at or after this date-time.' }),
  })
  .test('exclusive-cursors', 'after_id and before_id are mutually exclusive', function (value) {
    if (value?.after_id === undefined || value.before_id === undefined) return true;
    return this.createError({
      path: 'before_id',
      message: 'after_id and before_id are mutually exclusive: send one or neither',
    });
  });
/** A validated log query. */
export type LogQueryValue = yup.InferType<typeof LogQuery>;

/** The LogEntry record. */
export const LogEntryRecord = yup.object({
  id: yup
    .number()
    .integer()
    .required()
    .meta({ description: 'Keyset cursor for after_id and before_id; ids grow with time.' }),
  timestamp: dateTime().required().meta({ description: 'When the line was written.' }),
  stream: oneOf(LOG_STREAMS).required(),
  level: oneOf(LOG_LEVELS).required(),
  message: yup
    .string()
    .defined()
    .meta({
      description: `One line, at most ${MAX_MESSAGE_BYTES} bytes of UTF-8; a longer one is cut and ends with …[truncated].`,
    }),
});
/** A LogEntry record as returned. */
export interface LogEntryValue {
  id: number;
  timestamp: string;
  stream: (typeof LOG_STREAMS)[number];
  level: (typeof LOG_LEVELS)[number];
  message: string;
}

/** The page envelope of `GET /api/v1/agents/{agent}/logs`. */
export const LogPage = yup.object({
  items: yup
    .array(yup.mixed().meta({ openapi: { $ref: '#/components/schemas/LogEntry' } }))
    .required()
    .meta({
      description: 'Ascending by id (oldest first) on every page, whichever way it was read.',
    }),
  next_after_id: yup.number().integer().required().meta({
    description:
      'Send as after_id for the entries newer than this page: on an after_id page, the id of the last entry the read examined (the last item, or a later entry the filters left out), the after_id sent when it examined none; on a backward page the id of the last item, or 0 when empty. Never null: newer entries can still arrive.',
  }),
  next_before_id: yup.number().integer().nullable().defined().meta({
    description:
      'Send as before_id for the entries older than this page: the id of the first item (after_id + 1 on an empty forward page); null when no older entry exists.',
  }),
  has_more: yup.boolean().required().meta({
    description:
      'More entries may exist beyond this page in the direction read: newer ones for an after_id page (fetch again at once), older ones otherwise. A page examines a bounded number of stored entries, so with a filter that matches few of them it can be true on a page of fewer than limit items.',
  }),
});
/** A page as returned. */
export interface LogPageValue {
  items: LogEntryValue[];
  next_after_id: number;
  next_before_id: number | null;
  has_more: boolean;
}

/** Path parameter of the ingestion route: the agent's UUID, which the token is over. */
export const LogIngestParams = yup.object({
  agent_id: yup
    .string()
    .uuid()
    .lowercase()
    .required()
    .meta({ description: 'The agent UUID (its custom resource name).' }),
});

/** Query of the ingestion route. */
export const LogIngestQuery = yup.object({
  token: yup
    .string()
    .max(200)
    .optional()
    .meta({ description: "internalToken(secret, 'logs:write', agent_id)." }),
});

/** One line sent by the operator. */
export const LogIngestEntry = yup.object({
  deployment_id: yup.string().uuid().nullable().optional(),
  timestamp: isoDateTime()
    .optional()
    .meta({ description: 'When the line was written; defaults to when it is received.' }),
  stream: oneOf(LOG_STREAMS).required(),
  level: oneOf(LOG_LEVELS).optional().meta({
    description:
      'Inferred when absent: SYSTEM on the system stream; else a leading level word (WARNING:root:, [ERROR], INFO:), else INFO on stdout and ERROR on stderr.',
  }),
  message: yup
    .string()
    .defined()
    .meta({
      description: `One line; longer than ${MAX_MESSAGE_BYTES} bytes of UTF-8 it is cut.`,
    }),
});

/** Body of `POST /internal/agents/{agent_id}/logs`. */
export const LogIngest = yup
  .object({
    account_id: yup
      .string()
      .min(1)
      .max(64)
      .required()
      .meta({ description: "The agent's account." }),
    environment: yup.mixed<Environment>().oneOf(['live', 'test']).required(),
    entries: yup
      .array(LogIngestEntry.required())
      .max(MAX_APPEND_BATCH)
      .required()
      .meta({ description: `Up to ${MAX_APPEND_BATCH} lines, stored in this order.` }),
  })
  .required();
/** A validated ingestion body. */
export type LogIngestBody = yup.InferType<typeof LogIngest>;
