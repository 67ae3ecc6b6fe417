import { describe, expect, test } from '@jest/globals';
import { isUnsupportedEndpoint } from './unsupported.js';

describe('isUnsupportedEndpoint', () => {
  test.each([
    '/api/v1/snapshots',
    '/api/v1/collections/docs/snapshots/upload',
    '/api/v1/workspaces/team/collections/docs/snapshots',
    '/telemetry',
    '/api/v1/metrics',
    '/api/v1/cluster/peer/1',
    '/api/v1/locks',
    '/api/v1/collections/docs/shards',
    '/api/v1/collections/docs/cluster',
    '/api/v1/collections/docs/points/recommend',
    '/api/v1/collections/docs/points/recommend/batch',
    '/api/v1/collections/docs/points/recommend/groups',
    '/api/v1/collections/docs/points/discover',
    '/api/v1/collections/docs/points/discover/batch',
    '/api/v1/collections/docs/points/batch',
    '/api/v1/workspaces/team/collections/docs/points/batch',
    '/api/v1/collections/docs/facet',
    '/api/v1/collections/docs/points/search/matrix/pairs',
    '/api/v1/collections/docs/points/search/matrix/offsets',
    '/api/v1/collections/docs/points/vectors/delete',
    '/api/v1/collections/docs/aliases',
    '/api/v1/aliases',
  ])('is true for %s', (path) => expect(isUnsupportedEndpoint(path, 'POST')).toBe(true));

  test('is true for the alias update, and false for reads of a collection named aliases', () => {
    expect(isUnsupportedEndpoint('/api/v1/collections/aliases', 'POST')).toBe(true);
    expect(isUnsupportedEndpoint('/api/v1/collections/aliases', 'GET')).toBe(false);
    expect(isUnsupportedEndpoint('/api/v1/collections/aliases/points/search', 'POST')).toBe(false);
  });

  test.each([
    '/api/v1/collections',
    '/api/v1/collections/metrics',
    '/api/v1/collections/snapshots/points/search',
    '/api/v1/regions',
    '/api/v1/collections/docs/points/search/batch',
    '/api/v1/collections/docs/points/query/batch',
    '/api/v1/collections/batch/points/search',
    '/api/v1/collections/docs/points/vectors',
  ])('is false for %s', (path) => expect(isUnsupportedEndpoint(path)).toBe(false));
});
