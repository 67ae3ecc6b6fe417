/** The overlay of one's own writes on a cache that lags them. */
import { describe, expect, it } from '@jest/globals';
import { WrittenOverlay } from './written-overlay.js';

const version = (resourceVersion: string, status = '') => ({
  metadata: { resourceVersion },
  status,
});

describe('WrittenOverlay', () => {
  it('serves the cached object when nothing was written', () => {
    const overlay = new WrittenOverlay<ReturnType<typeof version>>();
    const cached = version('1');
    expect(overlay.pick('a', cached)).toBe(cached);
    expect(overlay.pick('a', undefined)).toBeUndefined();
  });

  it('serves the written object while the cache holds the version it replaced', () => {
    const overlay = new WrittenOverlay<ReturnType<typeof version>>();
    const written = version('2', 'written');
    overlay.record('a', '1', written);
    expect(overlay.pick('a', version('1'))).toBe(written);
    expect(overlay.pick('a', version('1'))).toBe(written);
    expect(overlay.pick('b', version('1'))?.status).toBe('');
  });

  it('serves the cache again, and forgets the write, once the cache moved on', () => {
    const overlay = new WrittenOverlay<ReturnType<typeof version>>();
    overlay.record('a', '1', version('2', 'written'));
    const newer = version('3', 'newer');
    expect(overlay.pick('a', newer)).toBe(newer);
    expect(overlay.size).toBe(0);
  });

  it('does not resurrect an object the cache no longer holds', () => {
    const overlay = new WrittenOverlay<ReturnType<typeof version>>();
    overlay.record('a', '1', version('2'));
    expect(overlay.pick('a', undefined)).toBeUndefined();
    expect(overlay.size).toBe(0);
  });

  it('forgets a key on request', () => {
    const overlay = new WrittenOverlay<ReturnType<typeof version>>();
    overlay.record('a', '1', version('2'));
    overlay.forget('a');
    expect(overlay.size).toBe(0);
    expect(overlay.pick('a', version('1'))?.metadata.resourceVersion).toBe('1');
  });
});
