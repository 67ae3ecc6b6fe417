/**
 * A button whose action needs a second, explicit confirmation (delete,
 * archive, stop): the first press shows "Confirm" and "Cancel" in place,
 * focused, so the keyboard reaches them.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

/** Props of {@link ConfirmButton}. */
export interface ConfirmButtonProps {
  label: string;
  /** The question shown before confirming. */
  question: string;
  onConfirm: () => unknown;
  disabled?: boolean;
  danger?: boolean;
}

/** A two-step button. */
export function ConfirmButton({
  label,
  question,
  onConfirm,
  disabled,
  danger,
}: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button
        type="button"
        class={danger ? 'danger' : ''}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        ref={confirmRef}
        class="danger"
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
      >
        Confirm {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
