/**
 * The vector explorer of one collection: 50 points per page (scroll, keyset
 * by next_page_offset), each payload as a tree; the 50 nearest points to a
 * point id or a pasted vector; a filter applied to both and to the count;
 * ticked points of the current page deleted after confirmation; the schema
 * with its conformance report.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../session.js';
import { failureOf, type ApiFailure } from '../api/errors.js';
import type { Collection, Point } from '../api/types.js';
import { href } from '../route.js';
import { statusLabel } from '../pages/collection-status.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';
import {
  currentStart,
  firstPage,
  nextPage,
  PAGE_SIZE,
  pageNumber,
  previousPage,
  withNext,
  type PageState,
  type PointId,
} from './paging.js';
import { PayloadView } from './payload-view.js';
import { nearestQuery, parseFilter, parseQueryInput } from './query-input.js';
import { SchemaView } from './schema-view.js';

type Mode = { kind: 'browse' } | { kind: 'nearest'; to: string };

/** The explorer page. */
export function ExplorerPage({ session, name }: { session: Session; name: string }) {
  const { api } = session;
  const base = `/api/v1/collections/${encodeURIComponent(name)}`;
  const info = useLoad(() => api.vectors<{ result: Collection }>('GET', base), [name]);
  const [filterText, setFilterText] = useState('');
  const [filter, setFilter] = useState<Record<string, unknown> | null>(null);
  const [paging, setPaging] = useState<PageState>(firstPage());
  const [mode, setMode] = useState<Mode>({ kind: 'browse' });
  // The points shown and what they are (`page-2`, `nearest`), so a page number never labels
  // the rows of another page while the next one loads.
  const [shown, setShown] = useState<{ of: string; points: Point[] }>({ of: '', points: [] });
  const points = shown.points;
  const [count, setCount] = useState<number | null>(null);
  const [ticked, setTicked] = useState<Set<PointId>>(new Set());
  const [queryText, setQueryText] = useState('');
  const [error, setError] = useState<ApiFailure | null>(null);
  const [revision, setRevision] = useState(0);

  const start = currentStart(paging);
  useEffect(() => {
    if (mode.kind !== 'browse') return;
    let live = true;
    void (async () => {
      try {
        const [page, counted] = await Promise.all([
          api.vectors<{ result: { points: Point[]; next_page_offset: PointId | null } }>(
            'POST',
            `${base}/points/scroll`,
            {
              limit: PAGE_SIZE,
              with_payload: true,
              with_vector: false,
              ...(start === null ? {} : { offset: start }),
              ...(filter ? { filter } : {}),
            },
          ),
          api.vectors<{ result: { count: number } }>('POST', `${base}/points/count`, {
            exact: true,
            ...(filter ? { filter } : {}),
          }),
        ]);
        if (!live) return;
        setShown({ of: `page-${pageNumber(paging)}`, points: page.result.points });
        setPaging((p) => withNext(p, page.result.next_page_offset ?? null));
        setCount(counted.result.count);
        setTicked(new Set());
        setError(null);
      } catch (err) {
        if (live) setError(failureOf(err));
      }
    })();
    return () => {
      live = false;
    };
  }, [base, start, filter, mode, revision]);

  const applyFilter = () => {
    const parsed = parseFilter(filterText);
    if ('error' in parsed) return setError(failureOf(new Error(parsed.error)));
    setFilter(parsed.filter);
    setPaging(firstPage());
    setMode({ kind: 'browse' });
  };

  const nearest = async () => {
    const size = info.data?.result.vectors.size ?? 0;
    const input = parseQueryInput(queryText, size);
    if (input.kind === 'invalid') return setError(failureOf(new Error(input.reason)));
    try {
      const res = await api.vectors<{ result: { points: Point[] } }>(
        'POST',
        `${base}/points/query`,
        nearestQuery(input, filter),
      );
      setShown({ of: 'nearest', points: res.result.points });
      setTicked(new Set());
      setMode({ kind: 'nearest', to: queryText.trim() });
      setError(null);
    } catch (err) {
      setError(failureOf(err));
    }
  };

  const deleteTicked = async () => {
    try {
      await api.vectors('POST', `${base}/points/delete?wait=true`, { points: [...ticked] });
      setTicked(new Set());
      setMode({ kind: 'browse' });
      setRevision((r) => r + 1);
    } catch (err) {
      setError(failureOf(err));
    }
  };

  const toggle = (id: PointId) => {
    const next = new Set(ticked);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setTicked(next);
  };

  const c = info.data?.result;
  return (
    <section aria-labelledby="explorer-title">
      <p class="crumbs">
        <a href={href('collections')}>Collections</a> /
      </p>
      <div class="title-row">
        <h1 id="explorer-title">{name}</h1>
        {c && (
          <span class={`badge c-${c.lifecycle_status ?? 'unknown'}`}>
            {statusLabel(c.lifecycle_status)}
          </span>
        )}
      </div>
      <ErrorNote error={info.error} />
      {c && (
        <p>
          {c.vectors.size} dimensions, {c.vectors.distance}.{' '}
          <span data-testid="explorer-count">
            {count === null ? '' : `${count} points${filter ? ' match the filter' : ''}`}
          </span>
        </p>
      )}
      <div class="card">
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            applyFilter();
          }}
        >
          <label for="explorer-filter">Filter (JSON)</label>
          <textarea
            id="explorer-filter"
            rows={2}
            placeholder='{"must":[{"key":"color","match":{"value":"red"}}]}'
            value={filterText}
            onInput={(e) => setFilterText(e.currentTarget.value)}
          />
          <button type="submit">Apply filter</button>
        </form>
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            void nearest();
          }}
        >
          <label for="explorer-query">Nearest 50 to a point id or a vector</label>
          <input
            id="explorer-query"
            value={queryText}
            onInput={(e) => setQueryText(e.currentTarget.value)}
            placeholder="17, a UUID, or [0.1, 0.2, …]"
          />
          <button type="submit">Find nearest</button>
        </form>
      </div>
      <ErrorNote error={error} />
      <div class="toolbar">
        {mode.kind === 'browse' ? (
          <>
            <button
              type="button"
              onClick={() => setPaging(previousPage(paging))}
              disabled={pageNumber(paging) === 1}
            >
              Previous page
            </button>
            <span data-testid="page-number" aria-live="polite">
              Page {pageNumber(paging)}
            </span>
            <button
              type="button"
              onClick={() => setPaging(nextPage(paging))}
              disabled={paging.next === null}
            >
              Next page
            </button>
          </>
        ) : (
          <>
            <span aria-live="polite" data-testid="nearest-title">
              {points.length} nearest to {mode.to}
            </span>
            <button type="button" onClick={() => setMode({ kind: 'browse' })}>
              Back to browsing
            </button>
          </>
        )}
        <ConfirmButton
          label={`Delete ${ticked.size} ticked`}
          danger
          question={`Delete ${ticked.size} points for good?`}
          disabled={ticked.size === 0}
          onConfirm={deleteTicked}
        />
      </div>
      <div class="table-wrap">
        <table data-testid="points" data-shown={shown.of}>
          <thead>
            <tr>
              <th scope="col">
                <span class="sr-only">Ticked</span>
              </th>
              <th scope="col">Id</th>
              {mode.kind === 'nearest' && <th scope="col">Score</th>}
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={String(p.id)} data-point={String(p.id)}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Tick point ${p.id}`}
                    checked={ticked.has(p.id)}
                    onChange={() => toggle(p.id)}
                  />
                </td>
                <td>
                  <code>{String(p.id)}</code>
                </td>
                {mode.kind === 'nearest' && <td>{p.score?.toFixed(4)}</td>}
                <td>
                  <PayloadView payload={p.payload} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <SchemaView session={session} name={name} />
    </section>
  );
}
