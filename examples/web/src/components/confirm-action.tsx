import { useState } from 'react';

interface ConfirmActionProps {
  label: string;
  /** What will happen, shown before the user confirms. */
  warning: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
}

/** A destructive action in two steps: the button, then a plain statement of the consequence and a confirmation. */
export function ConfirmAction({ label, warning, confirmLabel, busy, onConfirm }: ConfirmActionProps) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <div role="alertdialog" aria-label={label} className="confirm">
      <p>{warning}</p>
      <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
        {busy ? 'Working…' : confirmLabel}
      </button>
      <button type="button" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
