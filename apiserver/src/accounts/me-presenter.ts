/**
 * The record `GET /api/v1/auth/me` answers: the account behind the key, the
 * key's environment, the plan with its limits, and the key's public id and
 * prefix. The key's text is never stored, so it cannot be shown.
 */
import type { AuthContext } from '../auth/authenticate.js';

/** The plan's limits as the API names them. */
export interface PlanLimitsRecord {
  requests_per_minute: number | null;
  vector_requests_per_minute: number | null;
  vector_storage_mb: number | null;
  agent_quota: number;
  runs_in_flight: number;
  memory_mb: { min: number; max: number };
  idle_timeout_minutes: { min: number; max: number };
  keep_alive: boolean;
  region_cap: number;
  dockerfile: boolean;
  archive: { max_unpacked_bytes: number; max_entries: number; max_file_bytes: number };
}

/** The Me record. */
export interface MeRecord {
  id: string;
  name: string;
  environment: 'live' | 'test';
  plan: string;
  limits: PlanLimitsRecord;
  subscription_status: string;
  home_region: string;
  key: {
    id: string;
    prefix: string;
    label: string | null;
    agent_id: string | null;
    created_at: string;
  };
  created_at: string;
}

/** Shapes the caller's account and key. */
export function presentMe(auth: AuthContext): MeRecord {
  const { account, key, plan } = auth;
  return {
    id: account._id,
    name: account.name,
    environment: key.environment,
    plan: account.tier,
    limits: {
      requests_per_minute: plan.requestsPerMinute,
      vector_requests_per_minute: plan.vectorRequestsPerMinute,
      vector_storage_mb: plan.vectorStorageMb,
      agent_quota: plan.agentQuota,
      runs_in_flight: plan.runsInFlight,
      memory_mb: { ...plan.memoryMb },
      idle_timeout_minutes: { ...plan.idleTimeoutMinutes },
      keep_alive: plan.keepAlive,
      region_cap: plan.regionCap,
      dockerfile: plan.dockerfile,
      archive: {
        max_unpacked_bytes: plan.archive.maxUnpackedBytes,
        max_entries: plan.archive.maxEntries,
        max_file_bytes: plan.archive.maxFileBytes,
      },
    },
    subscription_status: account.subscriptionStatus,
    home_region: account.homeRegion,
    key: {
      id: key.keyId,
      prefix: key.prefix,
      label: key.label,
      agent_id: key.agentId,
      created_at: new Date(key.createdAt).toISOString(),
    },
    created_at: new Date(account.createdAt).toISOString(),
  };
}
