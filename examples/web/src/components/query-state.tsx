import { gatewayProblem } from '../lib/errors';

/** The loading and error states every screen shows the same way (announced to screen readers). */
export function Loading({ what }: { what: string }) {
  return (
    <p role="status" aria-live="polite" className="muted">
      Loading {what}…
    </p>
  );
}

export function ErrorMessage({ error, retry }: { error: unknown; retry?: () => void }) {
  const problem = gatewayProblem(error);
  if (!problem) return null;
  return (
    <div role="alert" className="alert" data-code={problem.code}>
      <p>{problem.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
