/** Account, API key and tenant records as the API server keeps them in MongoDB. */
import type { Tier } from '../../../crds/src/index.js';

/** Subscription states, as a billing provider reports them. */
export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const;
/** One of {@link SUBSCRIPTION_STATUSES}. */
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Statuses that keep the control plane open ("active, trialing or past due"). */
export const USABLE_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'active',
  'trialing',
  'past_due',
];

/** The two environments a key can address; their data never mixes. */
export type Environment = 'live' | 'test';

/** An account (a customer). */
export interface AccountDoc {
  _id: string;
  name: string;
  tier: Tier;
  subscriptionStatus: SubscriptionStatus;
  suspended: boolean;
  homeRegion: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An API key, stored by the SHA-256 of its text; the text itself is never stored. */
export interface ApiKeyDoc {
  /** Hex SHA-256 of the whole key. */
  _id: string;
  /** Public id of the key, for listing and revoking. */
  keyId: string;
  accountId: string;
  environment: Environment;
  /** The first characters of the key (`svc_live_AbCd`), enough to recognise it. */
  prefix: string;
  label: string | null;
  /** Set on keys minted for a deployment, so writes are attributed to the agent. */
  agentId: string | null;
  deploymentId: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Whose data a request addresses: an account in one environment. */
export interface Tenant {
  accountId: string;
  environment: Environment;
  /** The Kubernetes namespace holding the tenant's custom resources. */
  namespace: string;
}

/** The namespace of a tenant: `svc-<environment>-<account id>`. */
export function tenantNamespace(accountId: string, environment: Environment): string {
  return `svc-${environment}-${accountId}`;
}
