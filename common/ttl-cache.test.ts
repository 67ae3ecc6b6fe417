import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

describe('TtlCache', () => {
  it('answers a value until its time to live has passed', () => {
    let now = 1_000;
    const cache = new TtlCache<string>(500, 10, () => now);
    cache.set('a', 'one');
    now += 499;
    expect(cache.get('a')).toBe('one');
    now += 1;
    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets one key, or every value a predicate picks', () => {
    const cache = new TtlCache<{ account: string }>(60_000);
    cache.set('k1', { account: 'a' });
    cache.set('k2', { account: 'a' });
    cache.set('k3', { account: 'b' });
    cache.delete('k3');
    expect(cache.get('k3')).toBeUndefined();
    cache.deleteWhere((v) => v.account === 'a');
    expect([cache.get('k1'), cache.get('k2')]).toEqual([undefined, undefined]);
  });

  it('stays within its bound of entries', () => {
    const cache = new TtlCache<number>(60_000, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('c')).toBe(3);
    expect([cache.get('a'), cache.get('b')].filter((v) => v !== undefined).length).toBeLessThan(2);
  });
});
