import { describe, expect, it } from '@jest/globals';
import { FALLBACK_ARCHIVE_LIMITS } from '../../../crds/src/index.js';
import { loadPlans, PLANS, TIER_ORDER, tierAbove } from './plans.js';

describe('plans', () => {
  it('orders tiers from free to enterprise', () => {
    expect(tierAbove('starter', 'free')).toBe(true);
    expect(tierAbove('free', 'starter')).toBe(false);
    expect(tierAbove('enterprise', 'performance')).toBe(true);
    expect(tierAbove('free', 'free')).toBe(false);
  });

  it('gives enterprise an unlimited request budget and free no dockerfile', () => {
    expect(PLANS.enterprise.requestsPerMinute).toBeNull();
    expect(PLANS.free.dockerfile).toBe(false);
    expect(PLANS.starter.dockerfile).toBe(true);
  });

  it('merges SVC_PLANS_JSON over the defaults per plan', () => {
    const plans = loadPlans(JSON.stringify({ free: { requestsPerMinute: 5 } }));
    expect(plans.free.requestsPerMinute).toBe(5);
    expect(plans.free.memoryMb).toEqual(PLANS.free.memoryMb);
    expect(plans.starter).toEqual(PLANS.starter);
  });

  it('bounds what a deployed archive unpacks to on every plan, more on each dearer one', () => {
    expect(PLANS.free.archive).toEqual({
      maxUnpackedBytes: 512 * 1024 * 1024,
      maxEntries: 20_000,
      maxFileBytes: 100 * 1024 * 1024,
    });
    for (let i = 1; i < TIER_ORDER.length; i++) {
      const cheaper = PLANS[TIER_ORDER[i - 1]!].archive;
      const dearer = PLANS[TIER_ORDER[i]!].archive;
      expect(dearer.maxUnpackedBytes).toBeGreaterThan(cheaper.maxUnpackedBytes);
      expect(dearer.maxEntries).toBeGreaterThan(cheaper.maxEntries);
      expect(dearer.maxFileBytes).toBeGreaterThan(cheaper.maxFileBytes);
    }
    for (const tier of TIER_ORDER) {
      const { archive } = PLANS[tier];
      expect(archive.maxFileBytes).toBeLessThanOrEqual(archive.maxUnpackedBytes);
      // A builder holds an archive recorded without limits to the fallback: no plan allows more.
      expect(archive.maxUnpackedBytes).toBeLessThanOrEqual(
        FALLBACK_ARCHIVE_LIMITS.maxUnpackedBytes,
      );
      expect(archive.maxEntries).toBeLessThanOrEqual(FALLBACK_ARCHIVE_LIMITS.maxEntries);
      expect(archive.maxFileBytes).toBeLessThanOrEqual(FALLBACK_ARCHIVE_LIMITS.maxFileBytes);
    }
  });
});
