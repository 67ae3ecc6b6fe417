/** An agent's deployments: version, state (with queue position), error_message, and rollback. */
import type { Session } from '../session.js';
import type { Agent, Deployment, Page } from '../api/types.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { StatusNote } from '../ui/status-note.js';
import { useAction, useLoad } from '../ui/use-api.js';

/** The deployments section. */
export function DeploymentsSection({
  session,
  agent,
  pollMs,
}: {
  session: Session;
  agent: Agent;
  pollMs: number;
}) {
  const { api } = session;
  const path = `/api/v1/agents/${encodeURIComponent(agent.name)}/deployments`;
  const list = useLoad(
    () => api.get<Page<Deployment>>(`${path}?limit=20`),
    [agent.name],
    () => api.pollMs(pollMs),
  );
  const action = useAction();
  const versions = (list.data?.items ?? []).filter((d) => !d.is_ephemeral);
  return (
    <section aria-labelledby="deployments-title" class="card">
      <h2 id="deployments-title">Deployments</h2>
      <ErrorNote error={list.error ?? action.error} />
      <StatusNote note={action.note} />
      {versions.length === 0 ? (
        <p>None yet.</p>
      ) : (
        <DataTable testid="deployments" columns={['Version', 'State', 'Created', 'Error']} actions>
          {versions.map((d) => (
            <tr key={d.id} data-version={d.version}>
              <td>v{d.version}</td>
              <td>
                <span class={`badge s-${d.state}`}>{d.state}</span>
                {d.queue_position !== null && ` (#${d.queue_position} in queue)`}
                {(d.state === 'building' || d.state === 'deploying' || d.state === 'queued') && (
                  <progress aria-label={`v${d.version} ${d.state}`} />
                )}
              </td>
              <td>{new Date(d.created_at).toLocaleString()}</td>
              <td class="message">{d.error_message ?? ''}</td>
              <td>
                {d.can_rollback !== false && d.state !== 'active' && (
                  <ConfirmButton
                    label="Roll back"
                    question={`Roll back to v${d.version}?`}
                    disabled={action.busy}
                    onConfirm={() =>
                      action.run(async () => {
                        await api.post(`${path}/${d.version}/rollback`);
                        await list.reload();
                        return `Rolling back to v${d.version}`;
                      })
                    }
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
