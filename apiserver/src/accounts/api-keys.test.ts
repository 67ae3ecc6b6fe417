import { describe, expect, it } from '@jest/globals';
import { hashKey, mintKey, parseKey } from './api-keys.js';

describe('API keys', () => {
  it('mints keys whose prefix selects the environment', () => {
    const live = mintKey('live');
    const test = mintKey('test');
    expect(live.text).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(test.text).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    expect(parseKey(live.text)).toBe('live');
    expect(parseKey(test.text)).toBe('test');
  });

  it('stores a hash, never the text, and a short recognisable prefix', () => {
    const key = mintKey('live');
    expect(key.hash).toBe(hashKey(key.text));
    expect(key.hash).not.toContain(key.text.slice(9));
    expect(key.prefix).toBe(key.text.slice(0, 13));
  });

  it('mints a different key every time', () => {
    expect(mintKey('live').text).not.toBe(mintKey('live').text);
  });

  it('rejects malformed keys', () => {
    for (const text of [
      '',
      'svc_live_',
      'svc_prod_' + 'a'.repeat(43),
      'svc_live_' + 'a'.repeat(42),
      'Bearer x',
    ]) {
      expect(parseKey(text)).toBeNull();
    }
  });
});
