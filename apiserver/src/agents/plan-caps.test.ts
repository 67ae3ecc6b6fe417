import { describe, expect, it } from '@jest/globals';
import { PLANS } from '../accounts/plans.js';
import type { ApiError } from '../errors/catalogue.js';
import { checkPlanCaps, type CappedSettings } from './plan-caps.js';

const regions = ['local', 'eu-west', 'us-east'];
const base: CappedSettings = {
  tier: 'free',
  runtime: 'python3.11',
  memoryMb: 256,
  idleTimeoutMinutes: 5,
  keepAlive: false,
  regions: ['local'],
};

function failure(settings: Partial<CappedSettings>, accountTier: CappedSettings['tier'] = 'free') {
  try {
    checkPlanCaps({ ...base, ...settings }, accountTier, PLANS, regions);
  } catch (err) {
    const e = err as ApiError;
    return { status: e.status, code: e.code, ...e.fields };
  }
  return null;
}

describe('checkPlanCaps', () => {
  it('accepts settings within the plan', () => {
    expect(failure({})).toBeNull();
    expect(
      failure(
        { tier: 'starter', runtime: 'dockerfile', keepAlive: true, memoryMb: 2048 },
        'starter',
      ),
    ).toBeNull();
  });

  it('rejects dockerfile on free with 400 naming the restriction', () => {
    expect(failure({ runtime: 'dockerfile' })).toEqual({
      status: 400,
      code: 'PLAN_LIMIT_EXCEEDED',
      field: 'runtime',
      allowed: 'standard runtimes',
      tier: 'free',
    });
  });

  it('rejects memory outside the plan bounds', () => {
    expect(failure({ memoryMb: 513 })).toMatchObject({
      field: 'memory_mb',
      allowed: { min: 128, max: 512 },
    });
    expect(failure({ memoryMb: 64 })).toMatchObject({ field: 'memory_mb' });
  });

  it('rejects an idle timeout outside the plan bounds', () => {
    expect(failure({ idleTimeoutMinutes: 16 })).toMatchObject({ field: 'idle_timeout_minutes' });
  });

  it('rejects keep_alive where the plan has no always-on agents', () => {
    expect(failure({ keepAlive: true })).toMatchObject({
      field: 'keep_alive',
      code: 'PLAN_LIMIT_EXCEEDED',
    });
  });

  it('rejects more regions than the plan allows, and unknown regions', () => {
    expect(failure({ regions: ['local', 'eu-west'] })).toMatchObject({
      field: 'regions',
      allowed: 1,
    });
    expect(failure({ regions: ['mars'] })).toMatchObject({
      code: 'REGION_NOT_AVAILABLE',
      allowed: regions,
    });
  });

  it('rejects an agent tier above the account tier', () => {
    expect(failure({ tier: 'starter' }, 'free')).toMatchObject({ field: 'tier', allowed: 'free' });
  });
});
