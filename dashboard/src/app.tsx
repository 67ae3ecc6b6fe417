/**
 * The dashboard: reads where the vector plane is, then shows the sign-in form
 * until a key is kept for the session, then the signed-in shell.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiClient } from './api/client.js';
import { failureOf, type ApiFailure } from './api/errors.js';
import type { Me } from './api/types.js';
import { clearSessionKey, keepSessionKey, sessionKey, type Session } from './session.js';
import { Shell } from './shell.js';
import { SignIn } from './sign-in.js';
import { ErrorNote } from './ui/error-note.js';

/** The whole app. */
export function App() {
  const [vectorsUrl, setVectorsUrl] = useState<string | null>(null);
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [checking, setChecking] = useState(true);

  const signOut = () => {
    clearSessionKey();
    setSession(null);
  };

  const signIn = async (key: string, vectors: string): Promise<ApiFailure | null> => {
    const api = new ApiClient(key, vectors);
    try {
      const me = await api.get<Me>('/api/v1/auth/me');
      keepSessionKey(key);
      setSession({ api, me, signOut });
      return null;
    } catch (err) {
      return failureOf(err);
    }
  };

  useEffect(() => {
    void (async () => {
      try {
        const res = await fetch('config.json', { cache: 'no-store' });
        const config = (await res.json()) as { vectors_url: string | null };
        const vectors = config.vectors_url ?? '';
        setVectorsUrl(vectors);
        const kept = sessionKey();
        if (kept) {
          const failure = await signIn(kept, vectors);
          if (failure) clearSessionKey();
        }
      } catch (err) {
        setError(failureOf(err));
      } finally {
        setChecking(false);
      }
    })();
  }, []);

  if (checking) return <p class="loading">Loading…</p>;
  if (error || vectorsUrl === null) return <ErrorNote error={error} />;
  if (!session) return <SignIn onSignIn={(key) => signIn(key, vectorsUrl)} />;
  return <Shell session={session} />;
}
