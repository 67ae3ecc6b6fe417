import { describe, expect, it } from '@jest/globals';
import { isoDateTime } from './date-time.js';

describe('isoDateTime', () => {
  const schema = isoDateTime().optional();

  it.each(['2026-11-27T03:00:00Z', '2026-11-27T03:00:00.123+02:00', '2028-02-29T00:00:00Z'])(
    'accepts %s',
    async (value) => {
      await expect(schema.validate(value)).resolves.toBe(value);
    },
  );

  it.each([
    '',
    '2026-13-01T00:00:00Z',
    '2026-01-01T25:00:00Z',
    '2026-01-32T00:00:00Z',
    'yesterday',
  ])(
    'refuses %j, which yup datetime() alone passes or which makes an Invalid Date',
    async (value) => {
      await expect(schema.validate(value)).rejects.toThrow(/date-time/);
    },
  );

  it('leaves an absent value alone', async () => {
    await expect(schema.validate(undefined)).resolves.toBeUndefined();
  });
});
