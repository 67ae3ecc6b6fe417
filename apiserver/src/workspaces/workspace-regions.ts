/**
 * Which regions a workspace may be placed in: the ones the region registry
 * offers, at most the plan's region cap of them. Pure, unit-tested.
 */
import type { Plan } from '../accounts/plans.js';
import { PlanLimitExceeded, RegionNotAvailable } from '../errors/catalogue.js';

/**
 * The regions a workspace is placed in: `requested` without repeats, or (when
 * omitted) the account's home region, falling back to the installation's
 * default when the home region is no longer offered. Throws 400
 * REGION_NOT_AVAILABLE for a region the registry does not list and 400
 * PLAN_LIMIT_EXCEEDED beyond the plan's region cap.
 */
export function resolveWorkspaceRegions(
  requested: readonly string[] | undefined,
  homeRegion: string,
  offered: readonly string[],
  plan: Plan,
): string[] {
  const fallback = offered.includes(homeRegion) ? homeRegion : offered[0]!;
  const regions = [...new Set(requested ?? [fallback])];
  const unknown = regions.filter((r) => !offered.includes(r));
  if (unknown.length > 0) {
    throw new RegionNotAvailable(`Region ${unknown.join(', ')} is not offered here.`, {
      fields: { field: 'regions', allowed: offered },
    });
  }
  if (regions.length > plan.regionCap) {
    throw new PlanLimitExceeded(
      `The ${plan.tier} plan allows ${plan.regionCap} region(s) per workspace.`,
      { fields: { field: 'regions', allowed: plan.regionCap, tier: plan.tier } },
    );
  }
  return regions;
}

/** Whether two region lists hold the same regions, whatever their order and repeats. */
export function sameRegions(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((r) => right.has(r));
}
