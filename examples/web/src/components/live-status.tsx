import { useEffect, useState } from 'react';

interface LiveStatusProps {
  label: string;
  status: string;
  statusText?: string | null;
  final: boolean;
}

/**
 * A payment's or transfer's status as it changes, with every status seen so far. The status comes
 * from Apollo's cache, which the subscription's events update (the object is normalised by id).
 */
export function LiveStatus({ label, status, statusText, final }: LiveStatusProps) {
  const [seen, setSeen] = useState<string[]>([status]);
  useEffect(() => setSeen((earlier) => (earlier.at(-1) === status ? earlier : [...earlier, status])), [status]);
  return (
    <section aria-label={label} className="card" data-status={status} data-final={String(final)}>
      <p>
        Status: <strong className="status">{status}</strong>
        {final ? ' (final)' : ' (updating live)'}
      </p>
      {statusText && <p className="muted">{statusText}</p>}
      <ol aria-label="Status history" className="history">
        {seen.map((step, index) => (
          <li key={`${index}-${step}`}>{step}</li>
        ))}
      </ol>
    </section>
  );
}
