import { describe, expect, it } from '@jest/globals';
import { generateSecret } from '../../common/secrets.js';
import { readEngineConfig } from './config.js';

describe('readEngineConfig', () => {
  it('refuses to start without an API key, or with a guessable one', () => {
    expect(() => readEngineConfig({})).toThrow(/^SVC_ENGINE_API_KEY is not set/);
    expect(() => readEngineConfig({ SVC_ENGINE_API_KEY: 'password' })).toThrow(
      /^SVC_ENGINE_API_KEY contains the well-known value "password"/,
    );
  });

  it('reads a strong key as given', () => {
    const key = generateSecret();
    expect(readEngineConfig({ SVC_ENGINE_API_KEY: key }).apiKey).toBe(key);
  });
});
