import { describe, expect, test } from '@jest/globals';
import { ProxyError } from '../../errors/catalogue.js';
import { engineRefusal } from '../engine-errors.js';
import { withMembers, withPointsWritten } from './upsert.js';

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

describe('withPointsWritten', () => {
  test('adds details.points_written to an engine failure, keeping its status, code and message', () => {
    const failed = withPointsWritten(
      new ProxyError('The vector engine could not be reached.'),
      2_000,
    );
    expect(failed).toMatchObject({
      status: 502,
      code: 'PROXY_ERROR',
      message: 'The vector engine could not be reached.',
      fields: { details: { points_written: 2_000 } },
    });
  });

  test('keeps the fields the error had', () => {
    const failed = withPointsWritten(engineRefusal(400, 'Wrong input: x', 'points[3]'), 0);
    expect(failed).toMatchObject({
      code: 'BAD_REQUEST',
      fields: { field: 'points[3]', details: { points_written: 0 } },
    });
  });
});
