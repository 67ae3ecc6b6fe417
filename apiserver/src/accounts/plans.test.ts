import { describe, expect, it } from '@jest/globals';
import { loadPlans, PLANS, tierAbove } from './plans.js';

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
});
