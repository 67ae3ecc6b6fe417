import { describe, expect, it } from '@jest/globals';
import {
  isDerivedDataKey,
  MAX_DATA_KEY_LENGTH,
  parseJsonAnnotation,
  secretDataKey,
} from './secret-data-keys.js';

describe('secretDataKey', () => {
  it('keeps a key Kubernetes accepts as a data key', () => {
    const longest = 'K'.repeat(MAX_DATA_KEY_LENGTH);
    expect(secretDataKey('API_TOKEN')).toBe('API_TOKEN');
    expect(secretDataKey(longest)).toBe(longest);
    expect(isDerivedDataKey(longest)).toBe(false);
  });

  it('derives a stable, distinct, valid data key for a longer one', () => {
    const a = 'A'.repeat(254);
    const b = 'A'.repeat(255);
    expect(secretDataKey(a)).toBe(secretDataKey(a));
    expect(secretDataKey(a)).not.toBe(secretDataKey(b));
    for (const key of [a, b]) {
      expect(secretDataKey(key)).toMatch(/^[-._a-zA-Z0-9]{1,253}$/);
      expect(isDerivedDataKey(secretDataKey(key))).toBe(true);
    }
  });
});

describe('parseJsonAnnotation', () => {
  it('reads JSON and falls back on nothing or garbage', () => {
    expect(parseJsonAnnotation('["A"]', [])).toEqual(['A']);
    expect(parseJsonAnnotation(undefined, ['x'])).toEqual(['x']);
    expect(parseJsonAnnotation('{', {})).toEqual({});
  });
});
