/**
 * The usage chart's numbers: one bar per day of a metric's use, scaled
 * against the plan's limit (the monthly limit spread over the days of the
 * month, so a day's bar reads against its share), in SVG coordinates.
 */

/** One day's use of a metric. */
export interface DayUse {
  day: string;
  used: number;
}

/** A bar of the chart. */
export interface Bar {
  day: string;
  used: number;
  x: number;
  y: number;
  height: number;
}

/** The chart's bars, the y of the limit line (null: no limit) and the value the top stands for. */
export function chartBars(
  days: readonly DayUse[],
  dailyLimit: number | null,
  width: number,
  height: number,
): { bars: Bar[]; limitY: number | null; barWidth: number; top: number } {
  const top = Math.max(1, dailyLimit ?? 0, ...days.map((d) => d.used));
  const barWidth = days.length === 0 ? 0 : width / days.length;
  const scale = (v: number) => (height * v) / top;
  return {
    top,
    barWidth,
    bars: days.map((d, i) => ({
      day: d.day,
      used: d.used,
      x: i * barWidth,
      y: height - scale(d.used),
      height: scale(d.used),
    })),
    limitY: dailyLimit === null ? null : height - scale(dailyLimit),
  };
}

/** The UTC day boundaries of the last `n` days up to `now`: [from, to) pairs, oldest first. */
export function lastDays(n: number, now: Date): { from: Date; to: Date }[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: n }, (_, i) => {
    const from = new Date(today - (n - 1 - i) * 86_400_000);
    const to = i === n - 1 ? now : new Date(from.getTime() + 86_400_000);
    return { from, to };
  });
}
