import { describe, expect, test } from '@jest/globals';
import { withMembers } from './upsert.js';

describe('withMembers', () => {
  const body = Buffer.from('{"points":[{"id":1}]}');

  test('forwards a batch as written when the body had only points', () => {
    expect(withMembers(body, {})).toBe(body);
  });

  test("puts the body's other members in front of points", () => {
    const out = withMembers(body, { shard_key: 'a', ordering: { weak: true } });
    expect(JSON.parse(out.toString())).toEqual({
      shard_key: 'a',
      ordering: { weak: true },
      points: [{ id: 1 }],
    });
  });
});
