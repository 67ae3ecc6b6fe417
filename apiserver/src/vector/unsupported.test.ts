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
  ])('is true for %s', (path) => expect(isUnsupportedEndpoint(path)).toBe(true));

  test.each([
    '/api/v1/collections',
    '/api/v1/collections/metrics',
    '/api/v1/collections/snapshots/points/search',
    '/api/v1/regions',
  ])('is false for %s', (path) => expect(isUnsupportedEndpoint(path)).toBe(false));
});
