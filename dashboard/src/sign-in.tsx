/** The sign-in form: an API key, checked with GET /api/v1/auth/me and kept for the tab's session only. */
import { useState } from 'preact/hooks';
import type { ApiFailure } from './api/errors.js';
import { ErrorNote } from './ui/error-note.js';

/** Props of {@link SignIn}. */
export interface SignInProps {
  /** Checks and keeps the key; resolves with the failure, or null once signed in. */
  onSignIn: (key: string) => Promise<ApiFailure | null>;
}

/** The sign-in page. */
export function SignIn({ onSignIn }: SignInProps) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="sign-in">
      <h1>svc dashboard</h1>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const failure = await onSignIn(key.trim());
          setBusy(false);
          setError(failure);
          if (!failure) setKey('');
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p class="hint">Kept in this tab only, until you sign out or close it.</p>
        <button type="submit" disabled={busy || key.trim() === ''}>
          Sign in
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}
