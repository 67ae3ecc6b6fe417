import { describe, expect, test } from '@jest/globals';
import { rewriteLookups } from './lookup-from.js';

const scope = {
  accountId: '0123abcd-0000-0000-0000-000000000000',
  environment: 'live' as const,
  workspace: null,
};
const engineName = (name: string) => `t_live_0123abcd000000000000000000000000_${name}`;

describe('rewriteLookups', () => {
  test('rewrites lookup_from at the top, in prefetch and in batch searches', () => {
    const body = {
      searches: [
        {
          query: { recommend: { positive: [1] } },
          lookup_from: { collection: 'images', vector: 'clip' },
          prefetch: [{ query: [0.1, 0.2], lookup_from: { collection: 'texts' } }],
        },
      ],
    };
    rewriteLookups(body, scope);
    expect(body.searches[0]!.lookup_from).toEqual({
      collection: engineName('images'),
      vector: 'clip',
    });
    expect(body.searches[0]!.prefetch[0]!.lookup_from).toEqual({ collection: engineName('texts') });
  });

  test("uses the scope's workspace", () => {
    const body = { lookup_from: { collection: 'images' } };
    rewriteLookups(body, { ...scope, workspace: 'team-a' });
    expect(body.lookup_from.collection).toBe(
      'w_live_0123abcd000000000000000000000000_team-a_images',
    );
  });

  test.each([
    ['another tenant engine name with a slash', '../t_live_ffff_docs'],
    ['a non-string', 7],
    ['an empty name', ''],
  ])('refuses %s with 400 VALIDATION_ERROR', (_, collection) => {
    expect(() => rewriteLookups({ lookup_from: { collection } }, scope)).toThrow(
      expect.objectContaining({ status: 400, code: 'VALIDATION_ERROR' }),
    );
  });

  test('leaves a body without lookup_from as it was', () => {
    const body = {
      query: [1, 2, 3],
      filter: { must: [{ key: 'lookup_from', match: { value: 1 } }] },
    };
    const before = structuredClone(body);
    rewriteLookups(body, scope);
    expect(body).toEqual(before);
  });
});
