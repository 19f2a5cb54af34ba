import { useEffect, useState } from 'react';
import { statusInWords } from '../lib/status-words';

interface LiveStatusProps {
  label: string;
  status: string;
  statusText?: string | null;
  final: boolean;
}

/**
 * A payment's or transfer's status as it changes, in words beside the platform's code, with every
 * status seen so far. It comes from Apollo's cache, which the subscription's events update (the
 * object is normalised by id).
 */
export function LiveStatus({ label, status, statusText, final }: LiveStatusProps) {
  const [seen, setSeen] = useState<string[]>([status]);
  useEffect(() => setSeen((earlier) => (earlier.at(-1) === status ? earlier : [...earlier, status])), [status]);
  return (
    <section aria-label={label} className="card" data-status={status} data-final={String(final)}>
      <p>
        <strong className="status">{statusInWords(status, statusText)}</strong> <code>{status}</code>
      </p>
      <p className="muted" aria-live="polite">
        {final ? 'This is its final status.' : 'Updating live…'}
      </p>
      <ol aria-label="Status history" className="history">
        {seen.map((step, index) => (
          <li key={`${index}-${step}`}>{statusInWords(step)}</li>
        ))}
      </ol>
    </section>
  );
}
