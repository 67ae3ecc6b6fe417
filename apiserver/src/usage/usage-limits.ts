/**
 * The plan's usage limits: hard caps per calendar month (UTC) on what the
 * platform meters. An account over any of them has its agents moved to
 * `usage_paused` until the month turns or the plan changes. Defaults per
 * tier here; `SVC_PLANS_JSON` overrides them per plan with a `usageLimits`
 * object (replacing the default object whole). Pure, unit-tested.
 */
import type { Tier } from '../../../crds/src/index.js';
import type { Plan } from '../accounts/plans.js';
import type { UsageKind } from './model.js';
import type { UsageTotals } from './usage-store.js';

/** The capped metrics; null means unlimited. */
export interface UsageLimits {
  /** Agent compute, in MB-seconds (memory × wall seconds, services and runs). */
  computeMbSeconds: number | null;
  runs: number | null;
  builds: number | null;
  edgeRequests: number | null;
  edgeBytes: number | null;
}

/** How each limit is read from the totals. */
export const LIMIT_METRICS: ReadonlyArray<{
  limit: keyof UsageLimits;
  metric: string;
  kind: UsageKind;
  measure: keyof UsageTotals;
}> = [
  {
    limit: 'computeMbSeconds',
    metric: 'compute_mb_seconds',
    kind: 'compute',
    measure: 'mbSeconds',
  },
  { limit: 'runs', metric: 'runs', kind: 'run', measure: 'count' },
  { limit: 'builds', metric: 'builds', kind: 'build', measure: 'count' },
  { limit: 'edgeRequests', metric: 'edge_requests', kind: 'edge_request', measure: 'count' },
  { limit: 'edgeBytes', metric: 'edge_bytes', kind: 'edge_request', measure: 'bytes' },
];

const HOUR = 3600;
const GiB = 1024 ** 3;

/** The default limits per tier. */
export const DEFAULT_USAGE_LIMITS: Readonly<Record<Tier, UsageLimits>> = {
  free: {
    computeMbSeconds: 256 * 100 * HOUR,
    runs: 10_000,
    builds: 500,
    edgeRequests: 1_000_000,
    edgeBytes: 10 * GiB,
  },
  starter: {
    computeMbSeconds: 1024 * 750 * HOUR,
    runs: 100_000,
    builds: 2_000,
    edgeRequests: 10_000_000,
    edgeBytes: 100 * GiB,
  },
  performance: {
    computeMbSeconds: 8192 * 750 * HOUR,
    runs: 1_000_000,
    builds: 10_000,
    edgeRequests: 100_000_000,
    edgeBytes: 1024 * GiB,
  },
  enterprise: {
    computeMbSeconds: null,
    runs: null,
    builds: null,
    edgeRequests: null,
    edgeBytes: null,
  },
};

/** The usage limits of `plan`: its `usageLimits` (from SVC_PLANS_JSON) over the tier's defaults. */
export function usageLimitsOf(plan: Plan): UsageLimits {
  const override = (plan as Plan & { usageLimits?: Partial<UsageLimits> }).usageLimits;
  return { ...DEFAULT_USAGE_LIMITS[plan.tier], ...override };
}

/** One limit against what was used. */
export interface LimitUse {
  metric: string;
  used: number;
  limit: number | null;
  exceeded: boolean;
}

/** Each limit with what `totals` (per kind, for the account) used of it. */
export function limitUses(
  limits: UsageLimits,
  totals: Partial<Record<UsageKind, UsageTotals>>,
): LimitUse[] {
  return LIMIT_METRICS.map(({ limit, metric, kind, measure }) => {
    const used = totals[kind]?.[measure] ?? 0;
    const cap = limits[limit];
    return { metric, used, limit: cap, exceeded: cap !== null && used > cap };
  });
}

/** The first instant of the calendar month (UTC) holding `at`. */
export function periodStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** The first instant of the month after the one holding `at`. */
export function periodEnd(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}
