/** The note an action leaves when it succeeds, announced to screen readers. */

/** Renders `note` (nothing when null) as a status line. */
export function StatusNote({ note }: { note: string | null }) {
  if (!note) return null;
  return (
    <p role="status" class="note">
      {note}
    </p>
  );
}
