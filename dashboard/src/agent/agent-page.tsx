/**
 * One agent: its state and address, the actions, deployments, runs,
 * schedule, logs and secrets. The agent and its deployments are read again
 * every 3 s (slower on small request budgets: api/poll-budget.ts), so a
 * build's progress shows as it happens.
 */
import type { Session } from '../session.js';
import type { Agent } from '../api/types.js';
import { href } from '../route.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';
import { AgentActions } from './actions.js';
import { DeploymentsSection } from './deployments.js';
import { LogsSection } from './logs.js';
import { RunsSection } from './runs.js';
import { ScheduleSection } from './schedule.js';
import { SecretsSection } from './secrets.js';

/** How often the agent and its deployments are read again. */
export const AGENT_POLL_MS = 3000;

/** The agent page. */
export function AgentPage({ session, name }: { session: Session; name: string }) {
  const { api } = session;
  const path = `/api/v1/agents/${encodeURIComponent(name)}`;
  const agent = useLoad(
    () => api.get<Agent>(path),
    [name],
    () => api.pollMs(AGENT_POLL_MS),
  );
  const a = agent.data;
  return (
    <section aria-labelledby="agent-title">
      <p class="crumbs">
        <a href={href('agents')}>Agents</a> /
      </p>
      <div class="title-row">
        <h1 id="agent-title">{name}</h1>
        {a && (
          <span class={`badge s-${a.status}`} data-testid="agent-status">
            {a.status}
          </span>
        )}
      </div>
      <ErrorNote error={agent.error} />
      {a && (
        <>
          <dl class="facts">
            <dt>Type</dt>
            <dd>{a.agent_type}</dd>
            <dt>Runtime</dt>
            <dd>{a.runtime}</dd>
            <dt>URL</dt>
            <dd class="url">
              {a.url ? (
                <a href={a.url} target="_blank" rel="noopener noreferrer" data-testid="agent-url">
                  {a.url}
                </a>
              ) : (
                '—'
              )}
            </dd>
            {a.workspace_name && (
              <>
                <dt>Workspace</dt>
                <dd>{a.workspace_name}</dd>
              </>
            )}
            {a.failure_message && (
              <>
                <dt>Failure</dt>
                <dd>{a.failure_message}</dd>
              </>
            )}
          </dl>
          <AgentActions session={session} agent={a} onChange={agent.reload} />
          <DeploymentsSection session={session} agent={a} pollMs={AGENT_POLL_MS} />
          <RunsSection session={session} agent={a} />
          <ScheduleSection session={session} agent={a} onChange={agent.reload} />
          <LogsSection session={session} agent={a} />
          <SecretsSection session={session} agent={a} />
        </>
      )}
    </section>
  );
}
