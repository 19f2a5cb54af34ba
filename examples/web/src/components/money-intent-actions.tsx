import type { useMoneyMutation } from '../lib/use-money-mutation';
import { ErrorMessage } from './query-state';
import { StepUpPrompt } from './step-up-prompt';

type Intent = ReturnType<typeof useMoneyMutation<never, unknown>>;

interface MoneyIntentActionsProps {
  intent: Pick<Intent, 'phase' | 'retry' | 'stepUpUrl' | 'failure'>;
  /** "Send payment", "Send transfer". */
  sendLabel: string;
}

/**
 * The send button and what follows a failed send, shared by payments and transfers: a step-up
 * then the same request again, or, when the answer was lost, a retry of the same intent (its
 * idempotency key makes the platform answer with what happened instead of paying twice).
 */
export function MoneyIntentActions({ intent, sendLabel }: MoneyIntentActionsProps) {
  return (
    <>
      {intent.phase === 'unknown' ? (
        <div role="alert" className="alert">
          <p>
            We did not hear back, so it may have gone through. Checking sends the same request: it is never paid twice.
          </p>
          <button type="button" onClick={intent.retry}>
            Check and retry safely
          </button>
        </div>
      ) : (
        <button type="submit" className="primary" disabled={intent.phase !== 'editing'}>
          {intent.phase === 'sending' ? 'Sending…' : sendLabel}
        </button>
      )}
      {intent.stepUpUrl && <StepUpPrompt url={intent.stepUpUrl} onStepUp={intent.retry} />}
      {intent.phase !== 'unknown' && <ErrorMessage error={intent.failure} />}
    </>
  );
}
