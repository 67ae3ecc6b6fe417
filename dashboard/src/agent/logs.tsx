/**
 * An agent's logs: the newest page, then followed (read again after the last
 * id every 1.5 s or as the budget allows, at once while more wait), filtered by stream and level,
 * with older pages fetched on request (keyset paging back in time).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Session } from '../session.js';
import { failureOf, type ApiFailure } from '../api/errors.js';
import type { Agent, LogEntry, LogPage } from '../api/types.js';
import { ErrorNote } from '../ui/error-note.js';
import {
  appendNewer,
  LOG_LEVELS,
  LOG_STREAMS,
  logQuery,
  prependOlder,
  type LogFilters,
} from './log-query.js';

const FOLLOW_MS = 1500;

/** The filter checkbox groups: the field each sets, its legend and its choices. */
const FILTER_GROUPS: readonly (readonly [keyof LogFilters, string, readonly string[]])[] = [
  ['streams', 'Streams', LOG_STREAMS],
  ['levels', 'Levels', LOG_LEVELS],
];

/** The logs section. */
export function LogsSection({ session, agent }: { session: Session; agent: Agent }) {
  const { api } = session;
  const path = `/api/v1/agents/${encodeURIComponent(agent.name)}/logs`;
  const [filters, setFilters] = useState<LogFilters>({ streams: [], levels: [] });
  const [follow, setFollow] = useState(true);
  const [entries, setEntries] = useState<LogEntry[]>([]);
  const [olderFrom, setOlderFrom] = useState<number | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const afterRef = useRef<number | null>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    afterRef.current = null;
    setEntries([]);
    const tick = async () => {
      try {
        const after = afterRef.current;
        const page = await api.get<LogPage>(
          `${path}?${logQuery(filters, after === null ? {} : { after_id: after })}`,
        );
        if (stopped) return;
        if (after === null) {
          setEntries(page.items);
          setOlderFrom(page.next_before_id);
        } else setEntries((shown) => appendNewer(shown, page.items));
        afterRef.current = page.next_after_id;
        setError(null);
        if (follow)
          timer = setTimeout(
            () => void tick(),
            page.has_more && after !== null ? 0 : api.pollMs(FOLLOW_MS),
          );
      } catch (err) {
        if (stopped) return;
        setError(failureOf(err));
        if (follow) timer = setTimeout(() => void tick(), api.pollMs(FOLLOW_MS * 2));
      }
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [path, filters, follow]);

  const older = async () => {
    if (olderFrom === null) return;
    try {
      const page = await api.get<LogPage>(`${path}?${logQuery(filters, { before_id: olderFrom })}`);
      setEntries((shown) => prependOlder(shown, page.items));
      setOlderFrom(page.next_before_id);
    } catch (err) {
      setError(failureOf(err));
    }
  };

  const toggle = (field: keyof LogFilters, value: string) =>
    setFilters((f) => ({
      ...f,
      [field]: f[field].includes(value)
        ? f[field].filter((v) => v !== value)
        : [...f[field], value],
    }));

  return (
    <section aria-labelledby="logs-title" class="card" data-testid="logs">
      <h2 id="logs-title">Logs</h2>
      <div class="filters">
        {FILTER_GROUPS.map(([field, legend, values]) => (
          <fieldset key={field}>
            <legend>{legend}</legend>
            {values.map((v) => (
              <label key={v}>
                <input
                  type="checkbox"
                  value={v}
                  checked={filters[field].includes(v)}
                  onChange={() => toggle(field, v)}
                />{' '}
                {v}
              </label>
            ))}
          </fieldset>
        ))}
        <label>
          <input type="checkbox" checked={follow} onChange={() => setFollow(!follow)} /> Follow
        </label>
      </div>
      <ErrorNote error={error} />
      <button type="button" onClick={() => void older()} disabled={olderFrom === null}>
        Older lines
      </button>
      <ol
        class="log"
        aria-live="polite"
        aria-label="Log lines, oldest first"
        data-testid="log-lines"
      >
        {entries.map((e) => (
          <li key={e.id} class={`log-${e.stream} lvl-${e.level}`}>
            <time dateTime={e.timestamp}>{e.timestamp.slice(11, 23)}</time>{' '}
            <span class="lvl">{e.level}</span> <span class="stream">{e.stream}</span>{' '}
            <span class="msg">{e.message}</span>
          </li>
        ))}
      </ol>
      {entries.length === 0 && (
        <p>
          No lines{filters.streams.length + filters.levels.length > 0 ? ' match the filters' : ''}.
        </p>
      )}
    </section>
  );
}
