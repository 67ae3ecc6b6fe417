/**
 * The per-agent caps of a plan, checked when an agent is created or changed:
 * the agent's tier may not be above the account's, and its memory, idle
 * timeout, always-on flag, regions and runtime must fit the agent's tier.
 */
import type { Runtime, Tier } from '../../../crds/src/index.js';
import type { Plan } from '../accounts/plans.js';
import { tierAbove } from '../accounts/plans.js';
import { PlanLimitExceeded, RegionNotAvailable } from '../errors/catalogue.js';

/** The settings the caps apply to. */
export interface CappedSettings {
  tier: Tier;
  runtime: Runtime;
  memoryMb: number;
  idleTimeoutMinutes: number;
  keepAlive: boolean;
  regions: readonly string[];
}

/** Throws 400 PLAN_LIMIT_EXCEEDED or REGION_NOT_AVAILABLE naming the first setting out of bounds. */
export function checkPlanCaps(
  settings: CappedSettings,
  accountTier: Tier,
  plans: Record<Tier, Plan>,
  availableRegions: readonly string[],
): void {
  const { tier } = settings;
  const plan = plans[tier];
  const exceeded = (field: string, message: string, allowed: unknown) =>
    new PlanLimitExceeded(message, { fields: { field, allowed, tier } });

  if (tierAbove(tier, accountTier)) {
    throw new PlanLimitExceeded(
      `The account is on the ${accountTier} plan; an agent cannot be on ${tier}.`,
      {
        fields: { field: 'tier', allowed: accountTier, tier: accountTier },
      },
    );
  }
  if (settings.runtime === 'dockerfile' && !plan.dockerfile) {
    throw exceeded(
      'runtime',
      `The dockerfile runtime is not available on the ${tier} plan; use a standard runtime or a starter plan or above.`,
      'standard runtimes',
    );
  }
  const { memoryMb, idleTimeoutMinutes } = settings;
  if (memoryMb < plan.memoryMb.min || memoryMb > plan.memoryMb.max) {
    throw exceeded(
      'memory_mb',
      `memory_mb must be between ${plan.memoryMb.min} and ${plan.memoryMb.max} on the ${tier} plan.`,
      plan.memoryMb,
    );
  }
  if (
    idleTimeoutMinutes < plan.idleTimeoutMinutes.min ||
    idleTimeoutMinutes > plan.idleTimeoutMinutes.max
  ) {
    throw exceeded(
      'idle_timeout_minutes',
      `idle_timeout_minutes must be between ${plan.idleTimeoutMinutes.min} and ${plan.idleTimeoutMinutes.max} on the ${tier} plan.`,
      plan.idleTimeoutMinutes,
    );
  }
  if (settings.keepAlive && !plan.keepAlive) {
    throw exceeded(
      'keep_alive',
      `Always-on agents (keep_alive) are not available on the ${tier} plan.`,
      false,
    );
  }
  const unknown = settings.regions.filter((r) => !availableRegions.includes(r));
  if (unknown.length > 0) {
    throw new RegionNotAvailable(`Region ${unknown.join(', ')} is not offered here.`, {
      fields: { field: 'regions', allowed: availableRegions },
    });
  }
  if (new Set(settings.regions).size > plan.regionCap) {
    throw exceeded(
      'regions',
      `The ${tier} plan allows ${plan.regionCap} region(s) per agent.`,
      plan.regionCap,
    );
  }
}
