import { describe, expect, test } from '@jest/globals';
import { UpsertScanner } from './upsert-scanner.js';

function scan(text: string, chunkSize: number) {
  const points: unknown[] = [];
  const fields: Record<string, unknown> = {};
  const scanner = new UpsertScanner({
    onPoint: (raw) => points.push(JSON.parse(raw.toString('utf8'))),
    onField: (key, value) => (fields[key] = value),
  });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) scanner.push(bytes.subarray(i, i + chunkSize));
  scanner.end();
  return { points, fields, hasPoints: scanner.hasPoints };
}

const body = {
  shard_key: [3, 4],
  points: [
    { id: 1, vector: [0.1, -2e-3], payload: { s: 'x"}]\\', n: [1, { a: '{' }] } },
    { id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479', vector: [1, 2], payload: null },
    { id: 2, vector: Array.from({ length: 40 }, (_, i) => Math.sin(i)), payload: { a: [1, 2] } },
    {
      id: 3,
      vector: [
        [1, 2],
        [3, 4],
      ],
    },
    { id: 4, vector: [1.5, ']', 2] },
    { id: 5, vector: [], payload: {} },
  ],
  wait: true,
  n: 12,
  tail: [5, 6],
};

describe('UpsertScanner', () => {
  test.each([1, 2, 3, 5, 7, 11, 13, 64, 100_000])(
    'yields each point and other member whatever the chunk size (%i)',
    (size) => {
      const { points, fields, hasPoints } = scan(
        JSON.stringify(body, null, size % 2 ? 0 : 2),
        size,
      );
      expect(hasPoints).toBe(true);
      expect(points).toEqual(body.points);
      expect(fields).toEqual({ shard_key: [3, 4], wait: true, n: 12, tail: [5, 6] });
    },
  );

  test('accepts an empty points array and an empty object', () => {
    expect(scan('{"points":[]}', 3).points).toEqual([]);
    expect(scan(' {} ', 1).hasPoints).toBe(false);
  });

  test.each(['', '[1]', '{"points":[{"id":1}', '{"points":[{"id":1}]', '{"a":1} x', '{"a" 1}'])(
    'throws MALFORMED_JSON for %j',
    (text) => {
      expect(() => scan(text, 4)).toThrow(expect.objectContaining({ code: 'MALFORMED_JSON' }));
    },
  );

  test('throws PAYLOAD_TOO_LARGE for a point over the element cap', () => {
    const scanner = new UpsertScanner({ onPoint: () => undefined, onField: () => undefined }, 100);
    const text = JSON.stringify({ points: [{ id: 1, payload: { s: 'x'.repeat(200) } }] });
    expect(() => scanner.push(Buffer.from(text))).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE', status: 400 }),
    );
  });
});
