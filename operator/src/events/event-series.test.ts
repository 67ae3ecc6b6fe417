import { describe, expect, it } from '@jest/globals';
import { EventSeries, SERIES_WINDOW_MS } from './event-series.js';

const key = EventSeries.key('uid-1', 'Warning', 'BuildFailed', 'Build failed: pip');

describe('EventSeries', () => {
  it('creates the first Event, then counts repeats within the window on it', () => {
    const series = new EventSeries();
    expect(series.decide(key, 0)).toEqual({ write: 'create' });
    series.written(key, 0, { namespace: 'ns', name: 'a.1' });
    expect(series.decide(key, 1000)).toEqual({
      write: 'series',
      namespace: 'ns',
      name: 'a.1',
      count: 2,
    });
    series.written(key, 1000);
    expect(series.decide(key, 2000)).toMatchObject({ write: 'series', count: 3 });
  });

  it('creates a new Event after the window since the last repeat, or once forgotten', () => {
    const series = new EventSeries();
    series.written(key, 0, { namespace: 'ns', name: 'a.1' });
    series.written(key, SERIES_WINDOW_MS);
    // The window runs from the last repeat, not the first.
    expect(series.decide(key, 2 * SERIES_WINDOW_MS)).toMatchObject({ write: 'series' });
    expect(series.decide(key, 2 * SERIES_WINDOW_MS + 1)).toEqual({ write: 'create' });
    series.forget(key);
    expect(series.decide(key, SERIES_WINDOW_MS + 1)).toEqual({ write: 'create' });
  });

  it('tells apart Events of another object, type, reason or note', () => {
    const series = new EventSeries();
    series.written(key, 0, { namespace: 'ns', name: 'a.1' });
    for (const other of [
      EventSeries.key('uid-2', 'Warning', 'BuildFailed', 'Build failed: pip'),
      EventSeries.key('uid-1', 'Normal', 'BuildFailed', 'Build failed: pip'),
      EventSeries.key('uid-1', 'Warning', 'RolloutFailed', 'Build failed: pip'),
      EventSeries.key('uid-1', 'Warning', 'BuildFailed', 'Build failed: npm'),
    ])
      expect(series.decide(other, 1)).toEqual({ write: 'create' });
  });

  it('remembers a bounded number of Events, forgetting the least recently written', () => {
    const series = new EventSeries(SERIES_WINDOW_MS, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((uid) => EventSeries.key(uid, 'Normal', 'R', ''));
    series.written(a!, 0, { namespace: 'ns', name: 'a' });
    series.written(b!, 0, { namespace: 'ns', name: 'b' });
    series.written(a!, 1);
    series.written(c!, 2, { namespace: 'ns', name: 'c' });
    expect(series.decide(b!, 3)).toEqual({ write: 'create' });
    expect(series.decide(a!, 3)).toMatchObject({ write: 'series', name: 'a' });
    expect(series.decide(c!, 3)).toMatchObject({ write: 'series', name: 'c' });
  });
});
