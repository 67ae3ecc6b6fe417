/**
 * Usage over the last 14 days against the plan's limits: one summary per UTC
 * day (GET /api/v1/usage/summary with from and to), drawn as an SVG bar chart
 * per metric with the monthly limit's daily share as a line, and the month's
 * totals against the limits.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../session.js';
import type { UsageSummary } from '../api/types.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';
import { chartBars, lastDays } from './usage-chart.js';

const DAYS = 14;
const W = 560;
const H = 160;

/** The usage page. */
export function UsagePage({ session }: { session: Session }) {
  const { api } = session;
  const data = useLoad(async () => {
    const month = await api.get<UsageSummary>('/api/v1/usage/summary');
    const days = await Promise.all(
      lastDays(DAYS, new Date()).map(async ({ from, to }) => ({
        day: from.toISOString().slice(0, 10),
        summary: await api.get<UsageSummary>(
          `/api/v1/usage/summary?from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`,
        ),
      })),
    );
    return { month, days };
  }, []);
  const [metric, setMetric] = useState<string | null>(null);
  const month = data.data?.month;
  const chosen = metric ?? month?.limits[0]?.metric ?? null;
  const limit = month?.limits.find((l) => l.metric === chosen)?.limit ?? null;
  const days = (data.data?.days ?? []).map((d) => ({
    day: d.day,
    used: d.summary.limits.find((l) => l.metric === chosen)?.used ?? 0,
  }));
  const chart = chartBars(days, limit === null ? null : limit / 30, W, H);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <ErrorNote error={data.error} />
      {month && (
        <>
          <DataTable
            caption={
              <caption>
                This period ({month.period.from.slice(0, 10)} to {month.period.to.slice(0, 10)})
                against the plan's limits
              </caption>
            }
            columns={['Metric', 'Used', 'Limit']}
          >
            {month.limits.map((l) => (
              <tr key={l.metric} class={l.exceeded ? 'exceeded' : ''}>
                <th scope="row">{l.metric}</th>
                <td>{l.used}</td>
                <td>{l.limit ?? 'none'}</td>
              </tr>
            ))}
          </DataTable>
          <label for="usage-metric">Chart of</label>{' '}
          <select
            id="usage-metric"
            value={chosen ?? ''}
            onChange={(e) => setMetric(e.currentTarget.value)}
          >
            {month.limits.map((l) => (
              <option key={l.metric} value={l.metric}>
                {l.metric}
              </option>
            ))}
          </select>
          <figure class="chart">
            <svg
              viewBox={`0 0 ${W} ${H + 20}`}
              role="img"
              aria-label={`${chosen} per day, last ${DAYS} days`}
            >
              {chart.bars.map((b) => (
                <rect
                  key={b.day}
                  class="bar"
                  x={b.x + 2}
                  y={b.y}
                  width={Math.max(1, chart.barWidth - 4)}
                  height={b.height}
                >
                  <title>
                    {b.day}: {b.used}
                  </title>
                </rect>
              ))}
              {chart.limitY !== null && (
                <line class="limit" x1={0} x2={W} y1={chart.limitY} y2={chart.limitY} />
              )}
              <text x={4} y={12} class="axis">
                {Math.round(chart.top * 1000) / 1000}
              </text>
              <text x={0} y={H + 15} class="axis">
                {days[0]?.day}
              </text>
              <text x={W} y={H + 15} class="axis" text-anchor="end">
                {days[days.length - 1]?.day}
              </text>
            </svg>
            <figcaption>
              {chosen} per UTC day; the line is the plan's monthly limit divided by 30
              {limit === null ? ' (no limit)' : ''}.
            </figcaption>
          </figure>
        </>
      )}
    </section>
  );
}
