import { describe, expect, it } from '@jest/globals';
import { DEPLOYMENT_STATES, isFinalState, isRetiredState } from './enums.js';

describe('deployment states', () => {
  it('are final once nothing more happens to the deployment; unset is queued, not final', () => {
    expect(DEPLOYMENT_STATES.filter((s) => isFinalState(s))).toEqual([
      'active',
      'failed',
      'rolled_back',
      'superseded',
      'completed',
    ]);
    expect(isFinalState(undefined)).toBe(false);
  });

  it('are retired when final but not active: such a deployment never serves again', () => {
    expect(DEPLOYMENT_STATES.filter((s) => isRetiredState(s))).toEqual([
      'failed',
      'rolled_back',
      'superseded',
      'completed',
    ]);
    expect(isRetiredState(undefined)).toBe(false);
  });
});
