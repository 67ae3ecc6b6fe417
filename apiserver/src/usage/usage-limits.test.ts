import { describe, expect, it } from '@jest/globals';
import { loadPlans } from '../accounts/plans.js';
import { emptyTotals } from './usage-store.js';
import { limitUses, periodEnd, periodStart, usageLimitsOf } from './usage-limits.js';

describe('usageLimitsOf', () => {
  it("takes the tier's defaults, and a plan's usageLimits over them", () => {
    const plans = loadPlans(JSON.stringify({ free: { usageLimits: { edgeRequests: 5 } } }));
    expect(usageLimitsOf(plans.free).edgeRequests).toBe(5);
    expect(usageLimitsOf(plans.free).runs).toBe(10_000);
    expect(usageLimitsOf(plans.enterprise).computeMbSeconds).toBeNull();
  });
});

describe('limitUses', () => {
  it('is exceeded only past the limit, never when unlimited', () => {
    const uses = limitUses(
      { computeMbSeconds: 100, runs: 2, builds: null, edgeRequests: 10, edgeBytes: 1000 },
      {
        compute: { ...emptyTotals(), mbSeconds: 101 },
        run: { ...emptyTotals(), count: 2 },
        build: { ...emptyTotals(), count: 1_000_000 },
        edge_request: { ...emptyTotals(), count: 3, bytes: 20 },
      },
    );
    expect(Object.fromEntries(uses.map((u) => [u.metric, u.exceeded]))).toEqual({
      compute_mb_seconds: true,
      runs: false,
      builds: false,
      edge_requests: false,
      edge_bytes: false,
    });
    expect(uses.find((u) => u.metric === 'builds')).toMatchObject({ used: 1_000_000, limit: null });
  });
});

describe('periods', () => {
  it('are calendar months in UTC', () => {
    const at = new Date('2026-12-31T23:59:59Z');
    expect(periodStart(at).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(periodEnd(at).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
