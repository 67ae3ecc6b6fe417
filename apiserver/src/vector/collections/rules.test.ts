import { describe, expect, test } from '@jest/globals';
import { PLANS } from '../../accounts/plans.js';
import { collectionCap, parseCreate, resolveRegions } from './rules.js';

const offered = ['local', 'eu-west', 'us-east'];

describe('parseCreate', () => {
  test.each([
    ['cosine', 'Cosine'],
    ['COSINE', 'Cosine'],
    ['Euclid', 'Euclid'],
    ['euclidean', 'Euclid'],
    ['EuClIdEaN', 'Euclid'],
    ['dot', 'Dot'],
    ['Manhattan', 'Manhattan'],
  ])('normalises distance %s to %s', (sent, stored) => {
    expect(parseCreate({ name: 'n', vectors: { size: 3, distance: sent } }).distance).toBe(stored);
  });

  test('accepts a 100-character name and a 500-character description', () => {
    const input = parseCreate({
      name: 'a'.repeat(100),
      vectors: { size: 1, distance: 'dot' },
      description: 'd'.repeat(500),
    });
    expect(input.name).toHaveLength(100);
    expect(input.description).toHaveLength(500);
  });

  test('refuses a region list that is not strings', () => {
    expect(() =>
      parseCreate({ name: 'n', vectors: { size: 1, distance: 'dot' }, regions: [1] }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', status: 400 }));
  });
});

describe('resolveRegions', () => {
  test('defaults to the fixed region of a single-region plan', () => {
    expect(resolveRegions(undefined, PLANS.starter, offered, 'eu-west')).toEqual(['eu-west']);
  });

  test('defaults to the first offered region when the fixed one is not offered', () => {
    expect(resolveRegions(undefined, PLANS.free, offered, 'mars')).toEqual(['local']);
  });

  test('refuses a second region below the performance plan', () => {
    expect(() => resolveRegions(['local', 'eu-west'], PLANS.free, offered, 'local')).toThrow(
      expect.objectContaining({ code: 'COLLECTION_REGIONS_NOT_IN_SCOPE' }),
    );
  });

  test('refuses more regions than the performance cap', () => {
    const plan = { ...PLANS.performance, regionCap: 2 };
    expect(() => resolveRegions(offered, plan, offered, 'local')).toThrow(
      expect.objectContaining({ code: 'COLLECTION_REGIONS_NOT_IN_SCOPE', status: 422 }),
    );
    expect(resolveRegions(['us-east', 'local'], plan, offered, 'local')).toEqual([
      'us-east',
      'local',
    ]);
  });
});

describe('collectionCap', () => {
  test('uses vectorCollectionCap from the plan overrides, else the tier default', () => {
    expect(collectionCap({ ...PLANS.free, vectorCollectionCap: 7 } as typeof PLANS.free)).toBe(7);
    expect(collectionCap(PLANS.free)).toBe(5);
  });
});
