import { describe, expect, it } from '@jest/globals';
import { chartBars, lastDays } from './usage-chart.js';

describe('chartBars', () => {
  it('scales bars to the larger of the limit and the highest use', () => {
    const { bars, limitY, barWidth, top } = chartBars(
      [
        { day: 'a', used: 5 },
        { day: 'b', used: 10 },
      ],
      20,
      100,
      200,
    );
    expect(barWidth).toBe(50);
    expect(bars.map((b) => b.height)).toEqual([50, 100]);
    expect(limitY).toBe(0);
    expect(top).toBe(20);
  });

  it('has no limit line without a limit', () => {
    expect(chartBars([{ day: 'a', used: 0 }], null, 10, 10).limitY).toBeNull();
  });
});

describe('lastDays', () => {
  it('gives UTC days oldest first, the last ending now', () => {
    const now = new Date('2026-03-10T12:00:00Z');
    const days = lastDays(3, now);
    expect(days.map((d) => d.from.toISOString().slice(0, 10))).toEqual([
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(days[2]!.to).toBe(now);
  });
});
