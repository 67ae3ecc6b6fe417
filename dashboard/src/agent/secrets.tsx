/**
 * An agent's secrets: keys and descriptions only. A value is typed into a
 * password field, sent once, and the field cleared; no route returns it and
 * the page never shows it again.
 */
import { useState } from 'preact/hooks';
import type { Session } from '../session.js';
import type { Agent, Page, Secret } from '../api/types.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { DataTable } from '../ui/data-table.js';
import { ErrorNote } from '../ui/error-note.js';
import { StatusNote } from '../ui/status-note.js';
import { useAction, useLoad } from '../ui/use-api.js';

/** The secrets section. */
export function SecretsSection({ session, agent }: { session: Session; agent: Agent }) {
  const { api } = session;
  const path = `/api/v1/agents/${encodeURIComponent(agent.name)}/secrets`;
  const list = useLoad(() => api.get<Page<Secret>>(`${path}?limit=100`), [agent.name]);
  const action = useAction();
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  return (
    <section aria-labelledby="secrets-title" class="card">
      <h2 id="secrets-title">Secrets</h2>
      {list.data && list.data.items.length > 0 ? (
        <DataTable testid="secrets" columns={['Key', 'Description', 'Updated']} actions>
          {list.data.items.map((s) => (
            <tr key={s.key} data-secret={s.key}>
              <td>
                <code>{s.key}</code>
              </td>
              <td>{s.description ?? ''}</td>
              <td>{new Date(s.updated_at).toLocaleString()}</td>
              <td>
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the secret ${s.key}?`}
                  disabled={action.busy}
                  onConfirm={() =>
                    action.run(async () => {
                      await api.call('control', 'DELETE', `${path}/${encodeURIComponent(s.key)}`);
                      await list.reload();
                      return `Deleted ${s.key}`;
                    })
                  }
                />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        list.data && <p>No secrets.</p>
      )}
      <form
        class="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            await api.post(path, {
              key,
              value,
              description: description === '' ? null : description,
            });
            const saved = key;
            setKey('');
            setValue('');
            setDescription('');
            await list.reload();
            return `Saved ${saved}; its value is not shown again`;
          });
        }}
      >
        <label for="secret-key">Key</label>
        <input
          id="secret-key"
          required
          maxLength={255}
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <label for="secret-value">Value</label>
        <input
          id="secret-value"
          type="password"
          autocomplete="new-password"
          required
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <label for="secret-description">Description</label>
        <input
          id="secret-description"
          maxLength={512}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Set secret
        </button>
      </form>
      <StatusNote note={action.note} />
      <ErrorNote error={action.error ?? list.error} />
    </section>
  );
}
