/** An API error shown where it happened: the contract's code and message. */
import type { ApiFailure } from '../api/errors.js';

/** Renders `error` (nothing when null) as an alert. */
export function ErrorNote({ error }: { error: ApiFailure | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      <code>{error.code}</code> {error.message}
    </p>
  );
}
