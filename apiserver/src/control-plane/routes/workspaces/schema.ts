/**
 * Request and response schemas of the workspace routes. The routes validate
 * with these and the OpenAPI document is generated from them.
 */
import * as yup from 'yup';
import { AGENT_STATUSES, AGENT_TYPES } from '../../../../../crds/src/index.js';
import { isUuid } from '../../../agents/names.js';
import { pageEnvelope, pageQueryFields } from '../paging.js';

/** Workspace names: 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit. */
export const WORKSPACE_NAME_REGEX = /^[a-z0-9][a-z0-9-]*[a-z0-9]$/;

const workspaceName = () =>
  yup
    .string()
    .min(3)
    .max(63)
    .matches(WORKSPACE_NAME_REGEX, {
      message:
        '${path} may hold lowercase letters, digits and hyphens, and must start and end with a letter or digit',
    })
    .test(
      'uuid-name',
      '${path} must not look like a UUID (workspaces are addressed by name or id)',
      (v) => v === undefined || v === null || !isUuid(v),
    );

const regionList = () => yup.array(yup.string().min(1).max(63).required());

/** WorkspaceCreate. */
export const WorkspaceCreate = yup
  .object({
    name: workspaceName().required(),
    description: yup.string().max(2000).nullable().optional(),
    regions: regionList().min(1).nullable().optional().meta({
      description:
        "Regions to place the workspace in. Omitted or null: the account's home region. An empty array is refused (422). Each must be offered (400 REGION_NOT_AVAILABLE) and no more than the plan's region cap (400 PLAN_LIMIT_EXCEEDED).",
    }),
  })
  .noUnknown('The body has unknown key(s): ${unknown}')
  .required()
  .meta({ description: 'Creates a workspace.' });
/** A validated WorkspaceCreate body. */
export type WorkspaceCreateBody = yup.InferType<typeof WorkspaceCreate>;

/** WorkspaceUpdate. */
export const WorkspaceUpdate = yup
  .object({
    name: yup.string().nullable().optional().meta({
      description:
        'Immutable: the current name is accepted, any other is 400 WORKSPACE_NAME_IMMUTABLE.',
    }),
    description: yup
      .string()
      .max(2000)
      .nullable()
      .optional()
      .meta({ description: 'null clears it.' }),
  })
  .noUnknown(
    'The body has unknown key(s): ${unknown}; regions change through PATCH /api/v1/workspaces/{workspace}/regions',
  )
  .required()
  .meta({ description: 'Every field optional; omitted fields are untouched.' });
/** A validated WorkspaceUpdate body. */
export type WorkspaceUpdateBody = yup.InferType<typeof WorkspaceUpdate>;

/** Path parameter `{workspace}`: a name or an id. */
export const WorkspaceParams = yup.object({
  workspace: yup
    .string()
    .min(1)
    .max(255)
    .required()
    .meta({ description: 'The workspace name or id.' }),
});

/** Query of the two workspace list routes. */
export const WorkspaceListQuery = yup.object({ ...pageQueryFields() });

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** The Workspace record. */
export const WorkspaceRecord = yup.object({
  id: yup.string().uuid().required(),
  name: yup.string().required(),
  description: yup.string().nullable().defined(),
  regions: yup.array(yup.string().required()).required(),
  agent_count: yup
    .number()
    .integer()
    .required()
    .meta({ description: 'Agents in the workspace, counted when the record is read.' }),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
});
/** A Workspace record as returned. */
export type WorkspaceRecordValue = yup.InferType<typeof WorkspaceRecord>;

/** The list envelope of `GET /api/v1/workspaces`. */
export const WorkspaceList = pageEnvelope('Workspace');

/** WorkspaceDeleteResult. */
export const WorkspaceDeleteResult = yup.object({
  status: yup.string().oneOf(['deleted']).required(),
  secrets_deleted: yup
    .number()
    .integer()
    .required()
    .meta({ description: "How many of the workspace's secrets were deleted with it." }),
});

/** WorkspaceAgent. */
export const WorkspaceAgentRecord = yup.object({
  id: yup.string().uuid().required(),
  name: yup.string().required(),
  agent_type: yup
    .mixed()
    .oneOf([...AGENT_TYPES])
    .required(),
  status: yup
    .mixed()
    .oneOf([...AGENT_STATUSES])
    .required(),
  deployed: yup.boolean().required(),
  url: yup.string().nullable().defined(),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
  is_degraded: yup.boolean().optional(),
  regions_total: yup.number().integer().optional(),
  regions_ready: yup.number().integer().optional(),
  degraded_reason: yup.string().nullable().optional(),
  failure_code: yup.string().nullable().optional(),
  failure_message: yup.string().nullable().optional(),
});

/** The list envelope of `GET /api/v1/workspaces/{workspace}/agents`. */
export const WorkspaceAgentList = pageEnvelope('WorkspaceAgent');
