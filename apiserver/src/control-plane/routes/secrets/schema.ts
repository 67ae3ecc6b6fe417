/**
 * Request and response schemas of the agent secret routes. No message here
 * quotes the submitted value: yup's default type error does (`but the final
 * value was ...`), so every field names its expected type itself.
 */
import * as yup from 'yup';
import {
  isReservedKey,
  MAX_DESCRIPTION_LENGTH,
  MAX_KEY_LENGTH,
  MAX_VALUE_BYTES,
  SECRET_KEY_PATTERN,
} from '../../../secrets/secret-rules.js';
import { pageEnvelope, pageQueryFields } from '../paging.js';

const text = () => yup.string().typeError('${path} must be a string');

/** A secret key: an environment variable name the platform does not reserve. */
export const secretKey = () =>
  text()
    .min(1)
    .max(MAX_KEY_LENGTH)
    .matches(SECRET_KEY_PATTERN, {
      message:
        '${path} must be usable as an environment variable name: a letter or underscore, then letters, digits and underscores',
    })
    .test(
      'reserved-key',
      '${path} may not start with SVC_ or be PORT: the platform sets those variables in every agent',
      (key) => key === undefined || !isReservedKey(key),
    );

const secretValue = () =>
  text()
    .min(1)
    .meta({
      description: `The value, at least 1 character and at most ${MAX_VALUE_BYTES} bytes (413 SECRET_VALUE_TOO_LARGE past that). Write-only: no response ever carries it.`,
      openapi: { writeOnly: true },
    });

/** SecretCreate. */
export const SecretCreate = yup
  .object({
    key: secretKey()
      .required()
      .meta({
        description: `The environment variable the value is given as: 1 to ${MAX_KEY_LENGTH} characters, a letter or underscore then letters, digits and underscores. SVC_* and PORT are the platform's.`,
        example: 'API_TOKEN',
      }),
    value: secretValue().required(),
    description: text().max(MAX_DESCRIPTION_LENGTH).nullable().optional().meta({
      description:
        'At most 512 characters. Omitted: kept when the key exists (none on create); null clears it.',
      example: 'Token of the payments API',
    }),
  })
  .noUnknown('The body has unknown key(s): ${unknown}')
  .typeError('The body must be a JSON object')
  .required()
  .meta({
    description:
      'Sets a secret: creates the key, or replaces the value of an existing one (upsert).',
  });
/** A validated SecretCreate body. */
export type SecretCreateBody = yup.InferType<typeof SecretCreate>;

/** SecretRotate: the new value of an existing key. */
export const SecretRotate = yup
  .object({ value: secretValue().required() })
  .noUnknown('The body has unknown key(s): ${unknown}')
  .typeError('The body must be a JSON object')
  .required()
  .meta({ description: 'The new value of an existing secret; it replaces the old one.' });
/** A validated SecretRotate body. */
export type SecretRotateBody = yup.InferType<typeof SecretRotate>;

/** Path parameter `{agent}`. */
export const SecretListParams = yup.object({
  agent: yup.string().min(1).max(255).required().meta({ description: 'The agent UUID or name.' }),
});

/** Path parameters `{agent}` and `{key}`. */
export const SecretKeyParams = yup.object({
  agent: yup.string().min(1).max(255).required().meta({ description: 'The agent UUID or name.' }),
  key: yup.string().min(1).max(MAX_KEY_LENGTH).required().meta({ description: 'The secret key.' }),
});

/** Query of the list route. */
export const SecretListQuery = yup.object({ ...pageQueryFields() });

const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** The Secret record: what is known about a secret, never its value. */
export const SecretRecord = yup
  .object({
    id: yup.string().uuid().required(),
    agent_id: yup.string().uuid().required(),
    key: yup.string().required().meta({ example: 'API_TOKEN' }),
    description: yup.string().nullable().defined(),
    created_at: dateTime().required(),
    updated_at: dateTime().required().meta({ description: 'When the value last changed.' }),
  })
  .meta({ description: 'A secret of an agent. No response carries a secret value.' });
/** A Secret record as returned. */
export type SecretRecordValue = yup.InferType<typeof SecretRecord>;

/** The list envelope of `GET /api/v1/agents/{agent}/secrets`. */
export const SecretList = pageEnvelope('Secret');

/** Path parameter `{workspace}`. */
export const WorkspaceSecretListParams = yup.object({
  workspace: yup
    .string()
    .min(1)
    .max(255)
    .required()
    .meta({ description: 'The workspace name or id.' }),
});

/** Path parameters `{workspace}` and `{key}`. */
export const WorkspaceSecretKeyParams = yup.object({
  workspace: yup
    .string()
    .min(1)
    .max(255)
    .required()
    .meta({ description: 'The workspace name or id.' }),
  key: yup.string().min(1).max(MAX_KEY_LENGTH).required().meta({ description: 'The secret key.' }),
});

/** The WorkspaceSecret record: what is known about a workspace's secret, never its value. */
export const WorkspaceSecretRecord = yup
  .object({
    id: yup.string().uuid().required(),
    workspace_name: yup.string().required().meta({ example: 'research' }),
    user_id: yup.string().uuid().required(),
    key: yup.string().required().meta({ example: 'API_TOKEN' }),
    description: yup.string().nullable().defined(),
    created_at: dateTime().required(),
    updated_at: dateTime().required().meta({ description: 'When the value last changed.' }),
  })
  .meta({
    description:
      'A secret of a workspace, seen by every agent in it. No response carries a secret value.',
  });
/** A WorkspaceSecret record as returned. */
export type WorkspaceSecretRecordValue = yup.InferType<typeof WorkspaceSecretRecord>;

/** The list envelope of `GET /api/v1/workspaces/{workspace}/secrets`. */
export const WorkspaceSecretList = pageEnvelope('WorkspaceSecret');
