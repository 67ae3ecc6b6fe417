/** Schemas of the webhook routes. */
import * as yup from 'yup';

/** Path parameter `{agent_id}`: any text, so a malformed id is 401 like any unsigned delivery. */
export const WebhookParams = yup.object({
  agent_id: yup.string().required().max(64).meta({ description: 'The linked agent id.' }),
});

/** What a delivery came to. */
export const WebhookResult = yup.object({
  status: yup.string().oneOf(['deployed', 'ignored', 'duplicate', 'pong']).required().meta({
    description:
      'deployed: a deployment was made from the commit; ignored: not a push to the linked branch (reason says why); duplicate: this delivery id was handled before, nothing was done; pong: a ping.',
  }),
  agent_id: yup.string().uuid().required(),
  delivery_id: yup.string().required(),
  commit: yup.string().meta({ description: 'deployed only.' }),
  deployment_id: yup
    .string()
    .uuid()
    .meta({ description: 'deployed only; poll GET /api/v1/deployments/{id}.' }),
  reason: yup.string().meta({ description: 'ignored only.' }),
});
