/**
 * Hooks the pages read the APIs with: a load that re-runs on its keys and,
 * when asked, every few seconds (the live-updating lists), and an action
 * runner that remembers the last error to show where it happened.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { failureOf, type ApiFailure } from '../api/errors.js';

/** A loaded value, the last error, and a way to load again now. */
export interface Loaded<T> {
  data: T | null;
  error: ApiFailure | null;
  reload: () => Promise<void>;
}

/**
 * Loads with `load` now, when `keys` change, and then again after each
 * `pollMs()` milliseconds when given (read before each wait, so it follows
 * the key's request budget).
 */
export function useLoad<T>(
  load: () => Promise<T>,
  keys: unknown[],
  pollMs?: () => number,
): Loaded<T> {
  // What was loaded is kept with the keys it was loaded for: the first render after the keys
  // change (another agent's page) must not show, or act on, the previous keys' data.
  const key = JSON.stringify(keys);
  const [loaded, setLoaded] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;
  const pollRef = useRef(pollMs);
  pollRef.current = pollMs;
  const reload = useCallback(async () => {
    const loadingFor = keyRef.current;
    try {
      setLoaded({ key: loadingFor, value: await loadRef.current() });
      setError(null);
    } catch (err) {
      setError(failureOf(err));
    }
  }, []);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLoaded(null);
    const tick = async () => {
      await reload();
      const delay = pollRef.current?.();
      if (!stopped && delay) timer = setTimeout(() => void tick(), delay);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, keys);
  return { data: loaded?.key === key ? loaded.value : null, error, reload };
}

/** Runs actions one at a time, keeping the last one's error and a success note. */
export function useAction(): {
  busy: boolean;
  error: ApiFailure | null;
  note: string | null;
  run: (action: () => Promise<string | void>) => Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<string | void>) => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      setNote((await action()) ?? null);
      return true;
    } catch (err) {
      setError(failureOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, note, run };
}
