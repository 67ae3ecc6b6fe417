/** An agent's schedule: its expression, next run and pause/resume. */
import { ErrorNote } from '../ui/error-note.js';
import { useAction } from '../ui/use-api.js';
import type { AgentChangeProps } from './section-props.js';

/** The schedule section. */
export function ScheduleSection({ session, agent, onChange }: AgentChangeProps) {
  const action = useAction();
  const verb = agent.cron_paused ? 'resume' : 'pause';
  return (
    <section aria-labelledby="schedule-title" class="card" data-testid="schedule">
      <h2 id="schedule-title">Schedule</h2>
      {agent.cron_schedule === null ? (
        <p>
          No schedule (set one with <code>schedule:</code> in svc.yaml).
        </p>
      ) : (
        <>
          <dl class="facts">
            <dt>Expression (UTC)</dt>
            <dd>
              <code>{agent.cron_schedule}</code>
            </dd>
            <dt>Next run</dt>
            <dd data-testid="next-run">
              {agent.cron_paused ? (
                'paused'
              ) : agent.cron_next_run_at ? (
                <time dateTime={agent.cron_next_run_at}>
                  {new Date(agent.cron_next_run_at).toLocaleString()}
                </time>
              ) : (
                '—'
              )}
            </dd>
          </dl>
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () => {
                await session.api.post(
                  `/api/v1/agents/${encodeURIComponent(agent.name)}/schedule/${verb}`,
                );
                await onChange();
              })
            }
          >
            {agent.cron_paused ? 'Resume schedule' : 'Pause schedule'}
          </button>
        </>
      )}
      <ErrorNote error={action.error} />
    </section>
  );
}
