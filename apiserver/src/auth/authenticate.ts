/**
 * Resolves the caller of an authenticated route from `Authorization: Bearer
 * <key>`, in the contract's order: no usable header 401 MISSING_API_KEY (with
 * `WWW-Authenticate: Bearer`), a key that does not resolve 401
 * INVALID_API_KEY, a suspended account 403 ACCOUNT_SUSPENDED, an inactive
 * subscription 403 AUTH_SUBSCRIPTION_INACTIVE, an unreadable key store 500
 * AUTHENTICATION_ERROR. The key text is never logged.
 */
import type { Tier } from '../../../crds/src/index.js';
import type { AccountService } from '../accounts/account-service.js';
import {
  tenantNamespace,
  USABLE_SUBSCRIPTION_STATUSES,
  type AccountDoc,
  type ApiKeyDoc,
  type Tenant,
} from '../accounts/model.js';
import type { Plan } from '../accounts/plans.js';
import {
  AccountSuspended,
  AuthenticationError,
  InvalidApiKey,
  MissingApiKey,
  SubscriptionInactive,
} from '../errors/catalogue.js';

/** Who is calling, and under which plan. */
export interface AuthContext {
  account: AccountDoc;
  key: ApiKeyDoc;
  tenant: Tenant;
  plan: Plan;
}

/** What authentication needs. */
export interface AuthDeps {
  accounts: Pick<AccountService, 'resolveKeyCached'>;
  plans: Record<Tier, Plan>;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The bearer token of an Authorization header, or null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

/**
 * Authenticates a request; `checkSubscription` is false on the vector plane,
 * where the contract has no AUTH_SUBSCRIPTION_INACTIVE.
 */
export async function authenticate(
  authorization: string | undefined,
  deps: AuthDeps,
  checkSubscription = true,
): Promise<AuthContext> {
  const token = bearerToken(authorization);
  if (!token) {
    throw new MissingApiKey('Send the API key as Authorization: Bearer <key>.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  let resolved;
  try {
    resolved = await deps.accounts.resolveKeyCached(token);
  } catch (cause) {
    throw new AuthenticationError('Authentication failed; retry.', { cause });
  }
  if (!resolved) throw new InvalidApiKey('The API key is not valid.');
  const { key, account } = resolved;
  if (account.suspended) throw new AccountSuspended('The account is suspended for unpaid bills.');
  if (checkSubscription && !USABLE_SUBSCRIPTION_STATUSES.includes(account.subscriptionStatus)) {
    throw new SubscriptionInactive('The subscription is not active.', {
      fields: { subscription_status: account.subscriptionStatus },
    });
  }
  return {
    account,
    key,
    tenant: {
      accountId: account._id,
      environment: key.environment,
      namespace: tenantNamespace(account._id, key.environment),
    },
    plan: deps.plans[account.tier],
  };
}

/**
 * The agent a key is confined to, or null for an account key. A key minted
 * for a deployment (the agent's SVC_API_KEY) acts on its own agent only: any
 * other agent of the account is not found, lists hold only its agent, and
 * account-wide actions are refused. It may still spawn the job agents its
 * agent is allowed to, and use the account's vector collections.
 */
export function keyAgentScope(auth: Pick<AuthContext, 'key'>): string | null {
  return auth.key.agentId ?? null;
}
