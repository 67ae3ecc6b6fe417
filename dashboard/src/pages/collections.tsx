/** The account's vector collections with their status labels and point counts. */
import type { Session } from '../session.js';
import type { Collection } from '../api/types.js';
import { href } from '../route.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';
import { statusLabel } from './collection-status.js';

/** The collections page, read again every 10 s (a read costs one call per collection). */
export function CollectionsPage({ session }: { session: Session }) {
  const { api } = session;
  const list = useLoad(
    async () => {
      const res = await api.vectors<{ result: { collections: Collection[] } }>(
        'GET',
        '/api/v1/collections',
      );
      // The list carries no counts: each collection's own read does.
      return Promise.all(
        res.result.collections.map(async (c) => {
          if (c.workspace) return c;
          const one = await api
            .vectors<{ result: Collection }>(
              'GET',
              `/api/v1/collections/${encodeURIComponent(c.name)}`,
            )
            .catch(() => null);
          return {
            ...c,
            ...(one
              ? {
                  points_count: one.result.points_count,
                  lifecycle_status: one.result.lifecycle_status,
                }
              : {}),
          };
        }),
      );
    },
    [],
    // The vector plane's budget is its own; each read costs one call per collection.
    () => 10_000,
  );
  return (
    <section aria-labelledby="collections-title">
      <h1 id="collections-title">Collections</h1>
      <ErrorNote error={list.error} />
      {list.data && list.data.length === 0 && <p>No collections.</p>}
      {list.data && list.data.length > 0 && (
        <DataTable columns={['Name', 'Status', 'Points', 'Vectors', 'Regions', 'Workspace']}>
          {list.data.map((c) => (
            <tr key={`${c.workspace ?? ''}/${c.name}`} data-collection={c.name}>
              <th scope="row">
                {c.workspace ? c.name : <a href={href('collections', c.name)}>{c.name}</a>}
              </th>
              <td>
                <span class={`badge c-${c.lifecycle_status ?? 'unknown'}`}>
                  {statusLabel(c.lifecycle_status)}
                </span>
              </td>
              <td data-testid="points-count">{c.points_count ?? '—'}</td>
              <td>
                {c.vectors.size} · {c.vectors.distance}
              </td>
              <td>{c.regions?.join(', ') ?? '—'}</td>
              <td>{c.workspace ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
