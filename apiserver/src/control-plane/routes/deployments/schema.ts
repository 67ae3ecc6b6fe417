/** Request and response schemas of the deployment routes. */
import * as yup from 'yup';
import { pageEnvelope, pageQueryFields } from '../paging.js';
import { DEPLOYMENT_STATES } from '../../../../../crds/src/index.js';

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** `{deployment_id}`. */
export const DeploymentParams = yup.object({
  deployment_id: yup
    .string()
    .min(1)
    .max(64)
    .required()
    .meta({ description: 'The deployment UUID.' }),
});

/** `{agent}` and `{version}`. */
export const AgentVersionParams = yup.object({
  agent: yup.string().min(1).max(255).required().meta({ description: 'The agent UUID or name.' }),
  version: yup
    .number()
    .integer()
    .min(1)
    // Versions count up from 1; a larger number is refused before it reaches a label selector.
    .max(Number.MAX_SAFE_INTEGER)
    .required()
    .meta({ description: 'The deployment version.' }),
});

/** Query of the deployment lists. */
export const DeploymentListQuery = yup.object({
  ...pageQueryFields(),
  state: yup
    .mixed<(typeof DEPLOYMENT_STATES)[number]>()
    .oneOf([...DEPLOYMENT_STATES])
    .optional()
    .meta({ description: 'Only deployments in this state.' }),
});
/** A validated list query. */
export type DeploymentListQueryValue = yup.InferType<typeof DeploymentListQuery>;

/** Query of the account-wide list: the agent filter on top. */
export const AccountDeploymentListQuery = DeploymentListQuery.shape({
  agent_id: yup.string().uuid().optional().meta({ description: 'Only deployments of this agent.' }),
});

/** Body of cancel (optional). */
export const CancelBody = yup
  .object({
    reason: yup
      .string()
      .max(500)
      .optional()
      .meta({ description: 'Recorded as cancellation_reason.' }),
  })
  .optional();

/** The Deployment record. */
export const DeploymentRecord = yup.object({
  id: yup.string().uuid().required(),
  agent_id: yup.string().uuid().required(),
  version: yup.number().integer().required(),
  state: yup
    .string()
    .oneOf([...DEPLOYMENT_STATES])
    .required(),
  image_size_mb: yup.number().integer().nullable().defined(),
  regions: yup.array(yup.string().required()).required(),
  pending_regions: yup.array(yup.string().required()).required(),
  queue_position: yup
    .number()
    .integer()
    .nullable()
    .defined()
    .meta({ description: 'Set while queued.' }),
  is_ephemeral: yup.boolean().required(),
  is_serving: yup.boolean().required(),
  is_degraded: yup.boolean().required(),
  regions_total: yup.number().integer().required(),
  regions_ready: yup.number().integer().required(),
  pending_region_alert_stage: yup.string().nullable().defined(),
  can_redeploy: yup.boolean().required().meta({
    description:
      'False once the code archive is deleted (3 most recent successful deployments keep theirs).',
  }),
  can_rollback: yup.boolean().required().meta({
    description:
      'False for a version never built, for runs, once the code is no longer stored, and for the active version.',
  }),
  cancellation_requested: yup.boolean().required(),
  cancellation_reason: yup.string().nullable().defined(),
  created_at: dateTime().required(),
  started_at: dateTime().nullable().defined(),
  deployed_at: dateTime().nullable().defined(),
  error_message: yup.string().nullable().defined(),
  warnings: yup.array(yup.string().required()).required().meta({
    description:
      'Extension: non-blocking findings, also written to the agent log: a deploy without svc.yaml at the archive root (the settings it used), Dockerfile checks.',
  }),
  source: yup
    .object({
      type: yup.string().oneOf(['codehost']).required(),
      repository: yup.string().required().meta({ description: 'The clone URL.' }),
      branch: yup.string().required(),
      commit: yup.string().required().meta({ description: 'The full commit SHA deployed.' }),
    })
    .nullable()
    .defined()
    .meta({
      description:
        'Extension: the code-host push this deployment was made from (the linked repository, branch and exact commit); null for an upload, a redeploy or a rollback.',
    }),
});

/** A page of deployments. */
export const DeploymentList = pageEnvelope('Deployment');

/** The payload of a run. */
export const RunPayload = yup.object({
  deployment_id: yup.string().uuid().required(),
  payload: yup
    .object()
    .nullable()
    .defined()
    .meta({ openapi: { type: ['object', 'null'], additionalProperties: true } }),
});
