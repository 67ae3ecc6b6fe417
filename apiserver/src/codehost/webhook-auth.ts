/**
 * The caller a webhook deploys as: the linked agent's account, in the
 * link's environment, under the account's plan, with a key confined to the
 * linked agent. The key exists only in memory; nothing can present it.
 */
import type { Tier } from '../../../crds/src/index.js';
import { USABLE_SUBSCRIPTION_STATUSES, type AccountDoc } from '../accounts/model.js';
import type { Plan } from '../accounts/plans.js';
import type { AuthContext } from '../auth/authenticate.js';
import type { CodehostLinkDoc } from './model.js';

/** The key id webhook deployments are attributed to. */
export const WEBHOOK_KEY_ID = 'codehost-webhook';

/** The auth context of a delivery for `link`, or a reason the account may not deploy. */
export function webhookAuth(
  account: AccountDoc | null,
  link: CodehostLinkDoc,
  plans: Record<Tier, Plan>,
): AuthContext | { refused: string } {
  if (!account) return { refused: 'the account no longer exists' };
  if (account.suspended) return { refused: 'the account is suspended' };
  if (!USABLE_SUBSCRIPTION_STATUSES.includes(account.subscriptionStatus)) {
    return { refused: 'the subscription is not active' };
  }
  return {
    account,
    key: {
      _id: '',
      keyId: WEBHOOK_KEY_ID,
      accountId: account._id,
      environment: link.environment,
      prefix: '',
      label: 'code-host webhook',
      agentId: link._id,
      deploymentId: null,
      createdAt: link.createdAt,
      revokedAt: null,
    },
    tenant: { accountId: account._id, environment: link.environment, namespace: link.namespace },
    plan: plans[account.tier],
  };
}
