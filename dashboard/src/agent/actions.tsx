/** The agent's actions: stop, start, archive, restore, delete (each confirmed), and deploy new code. */
import { href } from '../route.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { ErrorNote } from '../ui/error-note.js';
import { StatusNote } from '../ui/status-note.js';
import { useAction } from '../ui/use-api.js';
import type { AgentChangeProps } from './section-props.js';

const ACTIONS = [
  ['stop', 'Stop', 'Stop this agent?'],
  ['start', 'Start', 'Start this agent?'],
  ['archive', 'Archive', 'Archive this agent?'],
  ['restore', 'Restore', 'Restore this agent?'],
] as const;

/** The actions bar of an agent. */
export function AgentActions({ session, agent, onChange }: AgentChangeProps) {
  const { api } = session;
  const action = useAction();
  const path = `/api/v1/agents/${encodeURIComponent(agent.name)}`;
  return (
    <section aria-labelledby="actions-title" class="card">
      <h2 id="actions-title">Actions</h2>
      <div class="actions">
        {ACTIONS.map(([verb, label, question]) => (
          <ConfirmButton
            key={verb}
            label={label}
            question={question}
            disabled={action.busy}
            onConfirm={() =>
              action.run(async () => {
                const res = await api.post<{ status?: string }>(`${path}/${verb}`);
                await onChange();
                return `${label}: ${res.status ?? 'accepted'}`;
              })
            }
          />
        ))}
        <a class="button" href={href('deploy', agent.name)}>
          Deploy new code
        </a>
        <ConfirmButton
          label="Delete"
          danger
          question={`Delete ${agent.name} for good?`}
          disabled={action.busy}
          onConfirm={() =>
            action.run(async () => {
              await api.call('control', 'DELETE', path);
              location.hash = href('agents');
            })
          }
        />
      </div>
      <StatusNote note={action.note} />
      <ErrorNote error={action.error} />
    </section>
  );
}
