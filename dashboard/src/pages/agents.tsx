/** The agents list: status, type, runtime, URL and last deployment state, read again every 3 s (slower on small request budgets). */
import type { Session } from '../session.js';
import type { Agent, Deployment, Page } from '../api/types.js';
import { href } from '../route.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';
import { latestByAgent } from './latest-deployments.js';

/** How often the list is read again. */
export const AGENTS_POLL_MS = 3000;

/** The agents page. */
export function AgentsPage({ session }: { session: Session }) {
  const { api } = session;
  const { data, error } = useLoad(
    async () => {
      const [agents, deployments] = await Promise.all([
        api.get<Page<Agent>>('/api/v1/agents?limit=100'),
        api.get<Page<Deployment>>('/api/v1/deployments?limit=100'),
      ]);
      return { agents: agents.items, latest: latestByAgent(deployments.items) };
    },
    [],
    () => api.pollMs(AGENTS_POLL_MS),
  );
  return (
    <section aria-labelledby="agents-title">
      <div class="title-row">
        <h1 id="agents-title">Agents</h1>
        <a class="button" href={href('deploy')}>
          Deploy
        </a>
      </div>
      <ErrorNote error={error} />
      {data && data.agents.length === 0 && <p>No agents yet: deploy one.</p>}
      {data && data.agents.length > 0 && (
        <DataTable
          caption={<caption class="sr-only">Agents, updated every few seconds</caption>}
          columns={['Name', 'Status', 'Type', 'Runtime', 'URL', 'Last deployment']}
        >
          {data.agents.map((a) => {
            const last = data.latest.get(a.id);
            return (
              <tr key={a.id} data-agent={a.name}>
                <th scope="row">
                  <a href={href('agents', a.name)}>{a.name}</a>
                </th>
                <td>
                  <span class={`badge s-${a.status}`}>{a.status}</span>
                </td>
                <td>{a.agent_type}</td>
                <td>{a.runtime}</td>
                <td class="url">
                  {a.url ? (
                    <a href={a.url} target="_blank" rel="noopener noreferrer">
                      {a.url}
                    </a>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {last ? (
                    <span class={`badge s-${last.state}`}>
                      v{last.version} {last.state}
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
