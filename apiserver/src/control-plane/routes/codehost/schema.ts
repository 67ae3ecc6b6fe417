/**
 * Schemas of the code-host routes. No message here quotes a submitted value
 * (yup's default type error does), so a token sent as the wrong type is not
 * echoed back.
 */
import * as yup from 'yup';
import { CODEHOST_PROVIDERS, type CodehostProvider } from '../../../codehost/model.js';

const text = () => yup.string().typeError('${path} must be a string');
const dateTime = () => yup.string().meta({ openapi: { format: 'date-time' } });

/** PUT /api/v1/auth/codehost. */
export const CodehostConnect = yup
  .object({
    url: text().required().max(2048).meta({
      description:
        'Base URL of the Git host over HTTPS, e.g. https://github.com or https://git.example.com.',
    }),
    token: text().required().min(1).max(4096).meta({
      description:
        'Access token with read access to the repositories; stored in a Kubernetes Secret, never returned.',
    }),
    provider: yup
      .mixed<CodehostProvider>()
      .nullable()
      .oneOf([...CODEHOST_PROVIDERS], '${path} must be one of github, gitlab, gitea, git')
      .meta({
        description:
          'github, gitlab, gitea or git (any Git server over HTTPS); guessed from the URL when omitted.',
      }),
    username: text().nullable().max(255).meta({
      description:
        'User name sent with the token (HTTP Basic); by default x-access-token (GitHub), oauth2 (GitLab), git (others).',
    }),
  })
  .noUnknown('${path} has an unknown field')
  .required();

/** The account's code host (never its token). */
export const CodehostRecord = yup.object({
  provider: yup
    .string()
    .oneOf([...CODEHOST_PROVIDERS])
    .required(),
  url: yup.string().required(),
  username: yup.string().required(),
  token_set: yup
    .boolean()
    .required()
    .meta({ description: 'Always true: a token is stored. It is never returned.' }),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
});

/** One check of the status route. */
const HostCheckRecord = yup.object({
  kind: yup.string().oneOf(['api', 'ls-remote']).required(),
  target: yup.string().required().meta({ description: 'The API endpoint or repository asked.' }),
  ok: yup.boolean().required(),
  error: yup.string().nullable().defined(),
});

/** GET /api/v1/auth/codehost/status. */
export const CodehostStatus = yup.object({
  connected: yup.boolean().required(),
  provider: yup
    .string()
    .oneOf([...CODEHOST_PROVIDERS])
    .nullable()
    .defined(),
  url: yup.string().nullable().defined(),
  token_valid: yup
    .boolean()
    .nullable()
    .defined()
    .meta({ description: 'True when every check passed; null when not connected.' }),
  checks: yup.array(HostCheckRecord).required(),
  checked_at: dateTime().required(),
});

/** POST /api/v1/agents/{agent}/codehost. */
export const CodehostLinkCreate = yup
  .object({
    repository: text().required().max(2048).meta({
      description: "Clone URL on the account's code host, or a path under it (owner/name).",
    }),
    branch: text()
      .default('main')
      .min(1)
      .max(255)
      .matches(/^(?!\/|.*\.\.|.*\/$)[^\s~^:?*[\\]+$/, '${path} must be a branch name')
      .meta({ description: 'The branch whose pushes deploy; main by default.' }),
    subdirectory: text().nullable().max(1024).meta({
      description:
        'Directory of the repository that is deployed (it holds svc.yaml); the root when omitted.',
    }),
  })
  .noUnknown('${path} has an unknown field')
  .required();

/** Path parameter `{agent}`. */
export const CodehostAgentParams = yup.object({
  agent: yup.string().required().meta({ description: 'Agent UUID or name.' }),
});

const CodehostDeploymentRecord = yup.object({
  deployment_id: yup.string().uuid().required(),
  commit: yup.string().required(),
  delivery_id: yup.string().required(),
  created_at: dateTime().required(),
});

/** An agent's link (the webhook secret only in the answer to POST). */
export const CodehostLinkRecord = yup.object({
  agent_id: yup.string().uuid().required(),
  repository: yup.string().required(),
  branch: yup.string().required(),
  subdirectory: yup.string().nullable().defined(),
  webhook_url: yup
    .string()
    .required()
    .meta({ description: 'Where the code host sends push events.' }),
  webhook_secret: yup.string().meta({
    description:
      'Only in the answer to POST: the secret to configure on the code host. It is never shown again; POST again to replace it.',
  }),
  recent_deployments: yup
    .array(CodehostDeploymentRecord)
    .required()
    .meta({ description: 'The last deployments pushes made, newest first, with their commits.' }),
  created_at: dateTime().required(),
  updated_at: dateTime().required(),
});
