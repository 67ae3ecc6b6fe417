/** Schemas of the account routes. */
import * as yup from 'yup';
import { SUBSCRIPTION_STATUSES } from '../../../accounts/model.js';
import { REGION_NAME } from '../../../regions/registry.js';

const bounds = () =>
  yup.object({ min: yup.number().integer().required(), max: yup.number().integer().required() });
const perMinute = (what: string) =>
  yup
    .number()
    .integer()
    .nullable()
    .defined()
    .meta({ description: `${what}; null means unlimited.` });

/** The plan's limits. */
export const PlanLimits = yup.object({
  requests_per_minute: perMinute('Control-plane requests per sliding minute'),
  vector_requests_per_minute: perMinute('Vector-plane requests per minute'),
  vector_storage_mb: perMinute('Vector storage in MB'),
  agent_quota: yup.number().integer().required().meta({ description: 'Deployed agents at once.' }),
  runs_in_flight: yup
    .number()
    .integer()
    .required()
    .meta({ description: 'Runs in flight per agent.' }),
  memory_mb: bounds().required(),
  idle_timeout_minutes: bounds().required(),
  keep_alive: yup
    .boolean()
    .required()
    .meta({ description: 'Whether always-on agents are allowed.' }),
  region_cap: yup.number().integer().required(),
  dockerfile: yup
    .boolean()
    .required()
    .meta({ description: 'Whether the dockerfile runtime is allowed.' }),
  archive: yup
    .object({
      max_unpacked_bytes: yup.number().integer().required(),
      max_entries: yup.number().integer().required(),
      max_file_bytes: yup.number().integer().required(),
    })
    .required(),
});

/** The Me record: the account behind the key. */
export const MeRecord = yup.object({
  id: yup.string().uuid().required().meta({ description: 'The account id.' }),
  name: yup.string().required(),
  environment: yup
    .string()
    .oneOf(['live', 'test'])
    .required()
    .meta({ description: "The key's environment (svc_live_ or svc_test_)." }),
  plan: yup.string().oneOf(['free', 'starter', 'performance', 'enterprise']).required(),
  limits: PlanLimits.required(),
  subscription_status: yup
    .string()
    .oneOf([...SUBSCRIPTION_STATUSES])
    .required(),
  home_region: yup.string().required(),
  key: yup
    .object({
      id: yup.string().uuid().required().meta({ description: "The key's public id." }),
      prefix: yup
        .string()
        .required()
        .meta({ description: 'The first characters of the key; never the key.' }),
      label: yup.string().nullable().defined(),
      agent_id: yup
        .string()
        .uuid()
        .nullable()
        .defined()
        .meta({ description: "Set for an agent's own key (SVC_API_KEY): the agent it acts on." }),
      created_at: yup
        .string()
        .required()
        .meta({ openapi: { format: 'date-time' } }),
    })
    .required(),
  created_at: yup
    .string()
    .required()
    .meta({ openapi: { format: 'date-time' } }),
});

/** The body of `PATCH /api/v1/users/me/home-region`. */
export const HomeRegionChange = yup
  .object({
    home_region: yup
      .string()
      .required()
      .matches(REGION_NAME, 'home_region must be a region name')
      .meta({ description: 'A region GET /api/v1/regions lists.' }),
  })
  .noUnknown()
  .required();
