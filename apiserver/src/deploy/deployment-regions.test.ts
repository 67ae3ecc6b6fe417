import { describe, expect, it } from '@jest/globals';
import { regionalStatus } from './deployment-regions.js';

describe('regionalStatus', () => {
  it('counts a region ready when its copy is active there', () => {
    expect(
      regionalStatus(
        ['local', 'eu-west'],
        [
          { region: 'local', state: 'active' },
          { region: 'eu-west', state: 'building' },
        ],
      ),
    ).toEqual({
      regions: ['local', 'eu-west'],
      pendingRegions: [],
      regionsTotal: 2,
      regionsReady: 1,
    });
  });

  it('names a region without a copy as pending', () => {
    expect(regionalStatus(['local', 'eu-west'], [{ region: 'eu-west', state: 'active' }])).toEqual({
      regions: ['local', 'eu-west'],
      pendingRegions: ['local'],
      regionsTotal: 2,
      regionsReady: 1,
    });
  });

  it('is nothing ready for a queued single-region deployment', () => {
    expect(regionalStatus(['local'], [{ region: 'local', state: undefined }])).toEqual({
      regions: ['local'],
      pendingRegions: [],
      regionsTotal: 1,
      regionsReady: 0,
    });
  });
});
