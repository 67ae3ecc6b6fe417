/**
 * Workspaces with their regions and agents, and a region change: the desired
 * regions sent to PATCH /workspaces/{w}/regions, then its operation followed
 * (state, each agent's and collection's progress) until it ends.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Session } from '../session.js';
import { failureOf, type ApiFailure } from '../api/errors.js';
import type { Agent, Operation, Page, Workspace } from '../api/types.js';
import { href } from '../route.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';

const ENDED = new Set(['succeeded', 'failed', 'rolled_back']);

/** The workspaces page. */
export function WorkspacesPage({ session }: { session: Session }) {
  const { api } = session;
  const list = useLoad(async () => {
    const [workspaces, regions] = await Promise.all([
      api.get<Page<Workspace>>('/api/v1/workspaces?limit=100'),
      api
        .vectors<{ result: Record<string, string> }>('GET', '/api/v1/regions')
        .catch(() => ({ result: {} })),
    ]);
    return { workspaces: workspaces.items, regions: Object.keys(regions.result) };
  }, []);
  return (
    <section aria-labelledby="workspaces-title">
      <h1 id="workspaces-title">Workspaces</h1>
      <ErrorNote error={list.error} />
      {list.data && list.data.workspaces.length === 0 && <p>No workspaces.</p>}
      {list.data?.workspaces.map((w) => (
        <WorkspaceCard
          key={w.name}
          session={session}
          workspace={w}
          regions={list.data!.regions}
          onChange={list.reload}
        />
      ))}
    </section>
  );
}

function WorkspaceCard({
  session,
  workspace,
  regions,
  onChange,
}: {
  session: Session;
  workspace: Workspace;
  regions: string[];
  onChange: () => Promise<void>;
}) {
  const { api } = session;
  const path = `/api/v1/workspaces/${encodeURIComponent(workspace.name)}`;
  const agents = useLoad(() => api.get<Page<Agent>>(`${path}/agents?limit=100`), [workspace.name]);
  const [wanted, setWanted] = useState<string[]>(workspace.regions);
  const [operation, setOperation] = useState<Operation | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);

  useEffect(() => {
    if (!operation || ENDED.has(operation.state)) return;
    const timer = setTimeout(() => {
      api.get<Operation>(`/api/v1/operations/${operation.operation_id}`).then(
        (op) => {
          setOperation(op);
          if (ENDED.has(op.state)) void onChange();
        },
        (err: unknown) => setError(failureOf(err)),
      );
    }, 2000);
    return () => clearTimeout(timer);
  }, [operation]);

  const change = async () => {
    setError(null);
    setNote(null);
    try {
      const res = await api.call<{ status?: string; operation_id?: string }>(
        'control',
        'PATCH',
        `${path}/regions`,
        { regions: wanted },
      );
      if (res.operation_id)
        setOperation(await api.get<Operation>(`/api/v1/operations/${res.operation_id}`));
      else setNote('No change: the workspace already has these regions.');
    } catch (err) {
      setError(failureOf(err));
    }
  };
  const choices = [...new Set([...regions, ...workspace.regions])];
  return (
    <article class="card" aria-labelledby={`ws-${workspace.name}`}>
      <h2 id={`ws-${workspace.name}`}>{workspace.name}</h2>
      {workspace.description && <p>{workspace.description}</p>}
      <p>Regions: {workspace.regions.join(', ') || '—'}</p>
      <h3>Agents</h3>
      <ErrorNote error={agents.error} />
      <ul>
        {agents.data?.items.map((a) => (
          <li key={a.id}>
            <a href={href('agents', a.name)}>{a.name}</a>{' '}
            <span class={`badge s-${a.status}`}>{a.status}</span>
          </li>
        ))}
        {agents.data?.items.length === 0 && <li>None.</li>}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void change();
        }}
      >
        <fieldset>
          <legend>Regions wanted</legend>
          {choices.map((r) => (
            <label key={r}>
              <input
                type="checkbox"
                value={r}
                checked={wanted.includes(r)}
                onChange={() =>
                  setWanted(wanted.includes(r) ? wanted.filter((x) => x !== r) : [...wanted, r])
                }
              />{' '}
              {r}
            </label>
          ))}
        </fieldset>
        <button
          type="submit"
          disabled={wanted.length === 0 || (operation !== null && !ENDED.has(operation.state))}
        >
          Change regions
        </button>
      </form>
      {note && <p role="status">{note}</p>}
      {operation && <OperationProgress operation={operation} />}
      <ErrorNote error={error} />
    </article>
  );
}

function OperationProgress({ operation }: { operation: Operation }) {
  return (
    <div role="status" class="note">
      <p>
        Region change {operation.from_regions.join(', ')} → {operation.to_regions.join(', ')}:{' '}
        <span class={`badge s-${operation.state}`}>{operation.state}</span>
        {!ENDED.has(operation.state) && <progress aria-label="Region change progress" />}
      </p>
      <ul>
        {operation.progress.agents.map((a) => (
          <li key={a.name}>
            agent {a.name}: {a.state}
          </li>
        ))}
        {operation.progress.collections.map((c) => (
          <li key={c.name}>
            collection {c.name}: {c.state}, {c.points_copied} points copied
          </li>
        ))}
      </ul>
      {operation.error !== null && operation.error !== undefined && (
        <pre class="message">{JSON.stringify(operation.error)}</pre>
      )}
    </div>
  );
}
