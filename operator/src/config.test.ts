import { describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../common/secrets.js';
import { loadOperatorConfig } from './config.js';

describe('loadOperatorConfig', () => {
  it('refuses the old built-in internal secret, a guessable one, or none', () => {
    for (const [value, reason] of [
      ['dev-only-internal-secret', /contains the well-known value "dev-only-internal-secret"/],
      ['changeme', /contains the well-known value "changeme"/],
      [undefined, /is not set/],
    ] as const) {
      expect(() => loadOperatorConfig({ SVC_INTERNAL_SECRET: value })).toThrow(reason);
    }
  });

  it('reads a strong internal secret as given', () => {
    const secret = generateSecret();
    expect(loadOperatorConfig({ SVC_INTERNAL_SECRET: secret }).internalSecret).toBe(secret);
  });

  it('serves the region SVC_REGION names, local by default', () => {
    const secret = generateSecret();
    expect(loadOperatorConfig({ SVC_INTERNAL_SECRET: secret }).region).toBe('local');
    expect(loadOperatorConfig({ SVC_INTERNAL_SECRET: secret, SVC_REGION: 'region-2' }).region).toBe(
      'region-2',
    );
  });
});
