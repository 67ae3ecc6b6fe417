import { describe, expect, it } from '@jest/globals';
import { PLANS } from '../accounts/plans.js';
import { resolveWorkspaceRegions, sameRegions } from './workspace-regions.js';

const offered = ['local', 'eu-west', 'us-east'];

describe('resolveWorkspaceRegions', () => {
  it('inherits the home region when regions are omitted', () => {
    expect(resolveWorkspaceRegions(undefined, 'eu-west', offered, PLANS.free)).toEqual(['eu-west']);
  });

  it('falls back to the first offered region when the home region is no longer offered', () => {
    expect(resolveWorkspaceRegions(undefined, 'mars', offered, PLANS.free)).toEqual(['local']);
  });

  it('drops repeats before counting against the cap', () => {
    expect(resolveWorkspaceRegions(['local', 'local'], 'local', offered, PLANS.free)).toEqual([
      'local',
    ]);
  });

  it('refuses a region the registry does not list with REGION_NOT_AVAILABLE', () => {
    expect(() =>
      resolveWorkspaceRegions(['local', 'mars'], 'local', offered, PLANS.enterprise),
    ).toThrow(expect.objectContaining({ code: 'REGION_NOT_AVAILABLE', status: 400 }));
  });

  it("refuses more regions than the plan's cap with PLAN_LIMIT_EXCEEDED", () => {
    const err = (() => {
      try {
        resolveWorkspaceRegions(['local', 'eu-west'], 'local', offered, PLANS.free);
      } catch (e) {
        return e as { code: string; fields: Record<string, unknown> };
      }
    })();
    expect(err).toMatchObject({
      code: 'PLAN_LIMIT_EXCEEDED',
      fields: { field: 'regions', allowed: 1, tier: 'free' },
    });
    expect(resolveWorkspaceRegions(['local', 'eu-west'], 'local', offered, PLANS.starter)).toEqual([
      'local',
      'eu-west',
    ]);
  });
});

describe('sameRegions', () => {
  it('compares as sets', () => {
    expect(sameRegions(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameRegions(['a', 'a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameRegions(['a'], ['a', 'b'])).toBe(false);
    expect(sameRegions(['a', 'c'], ['a', 'b'])).toBe(false);
  });
});
