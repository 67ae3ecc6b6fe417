import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../errors/catalogue.js';
import { checkHomeRegion } from './home-region.js';

const offered = ['local', 'eu-west'];

function codeOf(fn: () => void): { code: string; status: number; fields: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, status: err.status, fields: err.fields };
    throw err;
  }
  throw new Error('expected an error');
}

describe('checkHomeRegion', () => {
  it('refuses a region the registry does not offer, naming the offered ones', () => {
    const err = codeOf(() => checkHomeRegion('mars', offered, { tier: 'performance' }, []));
    expect(err).toMatchObject({ code: 'REGION_NOT_AVAILABLE', status: 400 });
    expect(err.fields.allowed).toEqual(offered);
  });

  it('refuses on a single-region plan whose resources are in another region', () => {
    for (const tier of ['free', 'starter'] as const) {
      const err = codeOf(() => checkHomeRegion('eu-west', offered, { tier }, ['local']));
      expect(err).toMatchObject({ code: 'STARTER_REGION_CONSISTENCY', status: 422 });
      expect(err.fields.existing_regions).toEqual(['local']);
    }
  });

  it('accepts a single-region plan with nothing placed, or everything already there', () => {
    expect(() => checkHomeRegion('eu-west', offered, { tier: 'free' }, [])).not.toThrow();
    expect(() =>
      checkHomeRegion('eu-west', offered, { tier: 'starter' }, ['eu-west', 'eu-west']),
    ).not.toThrow();
  });

  it('lets a multi-region plan move its home region away from existing resources', () => {
    expect(() =>
      checkHomeRegion('eu-west', offered, { tier: 'performance' }, ['local']),
    ).not.toThrow();
  });
});
