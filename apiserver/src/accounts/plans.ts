/**
 * Per-plan numbers in one place. The contract leaves their values to us; these
 * defaults suit a small self-hosted installation and can be overridden as a
 * whole with `SVC_PLANS_JSON` (a JSON object shaped like {@link PLANS}, merged
 * per plan over the defaults).
 */
import type { ArchiveLimits, Tier } from '../../../crds/src/index.js';

/** An inclusive numeric range. */
export interface Bounds {
  min: number;
  max: number;
}

/** What one plan allows. */
export interface Plan {
  tier: Tier;
  /** Control-plane requests per sliding minute; null means unlimited (no rate-limit headers). */
  requestsPerMinute: number | null;
  /** Vector-plane requests per fixed minute; null means unlimited. */
  vectorRequestsPerMinute: number | null;
  /** Vector storage (points' vectors and payloads, estimated) in MB; null means unlimited. */
  vectorStorageMb: number | null;
  /** Deployed agents at once (enforced at deploy). */
  agentQuota: number;
  /** Runs in flight at once per agent. */
  runsInFlight: number;
  memoryMb: Bounds;
  idleTimeoutMinutes: Bounds;
  /** Whether `keep_alive: true` (always-on) is allowed. */
  keepAlive: boolean;
  /** Most regions one agent or workspace may span. */
  regionCap: number;
  /** Whether the `dockerfile` runtime is allowed. */
  dockerfile: boolean;
  /** How far a deployed code archive may expand: total unpacked bytes, entries, bytes of one file. */
  archive: ArchiveLimits;
  /** Secrets one agent may hold, and (separately) one workspace. */
  secretsPerHolder: number;
  /** Region changes (of workspaces and collections) the account may start in any 30 days. */
  regionChangesPer30Days: number;
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The default plans, cheapest first. */
export const PLANS: Readonly<Record<Tier, Plan>> = {
  free: {
    tier: 'free',
    requestsPerMinute: 60,
    vectorRequestsPerMinute: 120,
    vectorStorageMb: 1024,
    agentQuota: 3,
    runsInFlight: 2,
    memoryMb: { min: 128, max: 512 },
    idleTimeoutMinutes: { min: 1, max: 15 },
    keepAlive: false,
    regionCap: 1,
    dockerfile: false,
    archive: { maxUnpackedBytes: 512 * MiB, maxEntries: 20_000, maxFileBytes: 100 * MiB },
    secretsPerHolder: 10,
    regionChangesPer30Days: 3,
  },
  starter: {
    tier: 'starter',
    requestsPerMinute: 300,
    vectorRequestsPerMinute: 600,
    vectorStorageMb: 10240,
    agentQuota: 10,
    runsInFlight: 5,
    memoryMb: { min: 128, max: 2048 },
    idleTimeoutMinutes: { min: 1, max: 60 },
    keepAlive: true,
    regionCap: 2,
    dockerfile: true,
    archive: { maxUnpackedBytes: 1 * GiB, maxEntries: 50_000, maxFileBytes: 256 * MiB },
    secretsPerHolder: 50,
    regionChangesPer30Days: 10,
  },
  performance: {
    tier: 'performance',
    requestsPerMinute: 1200,
    vectorRequestsPerMinute: 3000,
    vectorStorageMb: 102400,
    agentQuota: 50,
    runsInFlight: 20,
    memoryMb: { min: 128, max: 8192 },
    idleTimeoutMinutes: { min: 1, max: 240 },
    keepAlive: true,
    regionCap: 5,
    dockerfile: true,
    archive: { maxUnpackedBytes: 4 * GiB, maxEntries: 100_000, maxFileBytes: 1 * GiB },
    secretsPerHolder: 100,
    regionChangesPer30Days: 30,
  },
  enterprise: {
    tier: 'enterprise',
    requestsPerMinute: null,
    vectorRequestsPerMinute: null,
    vectorStorageMb: null,
    agentQuota: 500,
    runsInFlight: 100,
    memoryMb: { min: 128, max: 32768 },
    idleTimeoutMinutes: { min: 1, max: 1440 },
    keepAlive: true,
    regionCap: 10,
    dockerfile: true,
    archive: { maxUnpackedBytes: 8 * GiB, maxEntries: 200_000, maxFileBytes: 2 * GiB },
    secretsPerHolder: 200,
    regionChangesPer30Days: 100,
  },
};

/** Tiers from cheapest to dearest, for "is this tier above that one" checks. */
export const TIER_ORDER: readonly Tier[] = ['free', 'starter', 'performance', 'enterprise'];

/** The plans with `overridesJson` (the value of `SVC_PLANS_JSON`) merged over the defaults. */
export function loadPlans(overridesJson?: string): Record<Tier, Plan> {
  const plans = structuredClone(PLANS) as Record<Tier, Plan>;
  if (!overridesJson) return plans;
  const overrides = JSON.parse(overridesJson) as Partial<Record<Tier, Partial<Plan>>>;
  for (const tier of TIER_ORDER) {
    const override = overrides[tier];
    if (override) plans[tier] = { ...plans[tier], ...override, tier };
  }
  return plans;
}

/** True when tier `a` is above tier `b`. */
export function tierAbove(a: Tier, b: Tier): boolean {
  return TIER_ORDER.indexOf(a) > TIER_ORDER.indexOf(b);
}
