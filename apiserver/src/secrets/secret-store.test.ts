import { describe, expect, it } from '@jest/globals';
import { SecretSet } from './secret-store.js';
import { isReservedKey } from './secret-rules.js';

const meta = (id: string) => ({
  id,
  description: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describe('SecretSet', () => {
  it('keeps values as base64 data and metadata by key, listed in key order', () => {
    const set = new SecretSet({}, {});
    set.set('B_KEY', 'héllo', meta('b'));
    set.set('A_KEY', 'x', meta('a'));
    expect(set.keys()).toEqual(['A_KEY', 'B_KEY']);
    expect(Buffer.from(set.data.B_KEY ?? '', 'base64').toString('utf8')).toBe('héllo');
    expect(set.get('A_KEY')).toEqual({ key: 'A_KEY', ...meta('a') });
    expect(set.get('A_KEY')).not.toHaveProperty('value');
  });

  it('counts the bytes of every value together, in UTF-8', () => {
    const set = new SecretSet({}, {});
    set.set('A', 'héllo', meta('a'));
    set.set('B', 'abc', meta('b'));
    expect(set.totalValueBytes()).toBe(6 + 3);
  });

  it('removes a key from both data and metadata', () => {
    const set = new SecretSet({}, {});
    set.set('A', 'v', meta('a'));
    set.remove('A');
    expect(set.get('A')).toBeUndefined();
    expect(set.metadata).toEqual({});
  });

  it('gives a key set without metadata (by kubectl) a stable UUID derived from the key', () => {
    const set = new SecretSet({ BY_HAND: Buffer.from('v').toString('base64') }, {});
    const id = set.get('BY_HAND')?.id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new SecretSet({ BY_HAND: '' }, {}).get('BY_HAND')?.id).toBe(id);
  });
});

describe('isReservedKey', () => {
  it('reserves SVC_ in any case, and PORT', () => {
    expect(isReservedKey('SVC_API_KEY')).toBe(true);
    expect(isReservedKey('svc_x')).toBe(true);
    expect(isReservedKey('PORT')).toBe(true);
    expect(isReservedKey('SVCX')).toBe(false);
    expect(isReservedKey('API_TOKEN')).toBe(false);
  });
});
