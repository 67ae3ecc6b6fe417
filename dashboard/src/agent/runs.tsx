/** An agent's runs (trigger, state, duration) and a form to run it now with a JSON payload. */
import { useState } from 'preact/hooks';
import type { Session } from '../session.js';
import type { Agent, Page, Run } from '../api/types.js';
import { ApiFailure } from '../api/errors.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { StatusNote } from '../ui/status-note.js';
import { useAction, useLoad } from '../ui/use-api.js';

/** The runs section. */
export function RunsSection({ session, agent }: { session: Session; agent: Agent }) {
  const { api } = session;
  const path = `/api/v1/agents/${encodeURIComponent(agent.name)}`;
  const runs = useLoad(
    () => api.get<Page<Run>>(`${path}/runs?limit=20`),
    [agent.name],
    () => api.pollMs(3000),
  );
  const action = useAction();
  const [payload, setPayload] = useState('{}');
  return (
    <section aria-labelledby="runs-title" class="card">
      <h2 id="runs-title">Runs</h2>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            let body: unknown;
            try {
              body = payload.trim() === '' ? null : JSON.parse(payload);
            } catch (err) {
              throw new ApiFailure(
                0,
                'INVALID_JSON',
                `The payload is not JSON: ${(err as Error).message}`,
              );
            }
            const accepted = await api.post<{ deployment_id: string }>(`${path}/run`, {
              payload: body,
            });
            await runs.reload();
            return `Run ${accepted.deployment_id} accepted`;
          });
        }}
      >
        <label for="run-payload">Payload (JSON)</label>
        <textarea
          id="run-payload"
          rows={3}
          value={payload}
          onInput={(e) => setPayload(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Run now
        </button>
      </form>
      <StatusNote note={action.note} />
      <ErrorNote error={action.error ?? runs.error} />
      {runs.data && runs.data.items.length > 0 && (
        <DataTable testid="runs" columns={['Started', 'Trigger', 'State', 'Duration', 'Error']}>
          {runs.data.items.map((r) => (
            <tr key={r.id} data-run={r.id}>
              <td>{new Date(r.created_at).toLocaleString()}</td>
              <td>{r.trigger_source}</td>
              <td>
                <span class={`badge s-${r.state}`}>{r.state}</span>
              </td>
              <td>{r.duration_seconds === null ? '—' : `${r.duration_seconds} s`}</td>
              <td class="message">{r.error_message ?? ''}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
