import { describe, expect, test } from '@jest/globals';
import { checkPaging, MAX_LIMIT, MAX_OFFSET, pagingMayExceed } from './paging.js';

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('pagingMayExceed', () => {
  test.each([
    [{ vector: [1], limit: 10, offset: 20 }, false],
    [{ vector: [1], limit: MAX_LIMIT, offset: MAX_OFFSET }, false],
    [{ vector: [1], limit: MAX_LIMIT + 1 }, true],
    [{ vector: [1], offset: MAX_OFFSET + 1 }, true],
    [{ vector: [1], limit: 1e12 }, true],
    [{ vector: [1], limit: 2.5 }, true],
    [{ filter: { must: [{ key: 'limit', match: { value: 'offset' } }] } }, false],
  ])('is %j -> %s', (body, expected) => expect(pagingMayExceed(bytes(body))).toBe(expected));

  test('is true for any backslash: a name may be spelled with escapes', () => {
    expect(pagingMayExceed(Buffer.from('{"l\\u0069mit":1}'))).toBe(true);
  });
});

describe('checkPaging', () => {
  test('refuses limit and offset over their caps where the engine reads them', () => {
    expect(() => checkPaging('search', { limit: MAX_LIMIT + 1 })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        fields: { field: 'limit', max: MAX_LIMIT },
      }),
    );
    expect(() =>
      checkPaging('query-batch', { searches: [{}, { prefetch: { prefetch: [{ limit: 1e9 }] } }] }),
    ).toThrow(
      expect.objectContaining({
        fields: { field: 'searches[1].prefetch.prefetch[0].limit', max: MAX_LIMIT },
      }),
    );
  });

  test("leaves a scroll's offset (a point id) and payload names elsewhere alone", () => {
    expect(() => checkPaging('scroll', { offset: 1e12, limit: 5 })).not.toThrow();
    expect(() =>
      checkPaging('query', { query: { formula: { defaults: { limit: 1e12 } } } }),
    ).not.toThrow();
  });
});
