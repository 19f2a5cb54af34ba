import { useCallback, useRef, useState } from 'react';
import { gatewayProblem, stepUpUrlOf } from './errors';

/**
 * What payments and transfers share: one idempotency key per attempt (kept for a retry, a step-up
 * or an unknown outcome, so the same money is never sent twice; new after a success), and the
 * step-up the gateway may ask for first.
 */
export function useMoneyMutation<T>(send: (idempotencyKey: string) => Promise<T>) {
  const key = useRef(crypto.randomUUID());
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = useCallback(async (): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      const result = await send(key.current);
      key.current = crypto.randomUUID();
      return result;
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, [send]);
  const stepUpUrl = stepUpUrlOf(error);
  const problem = stepUpUrl ? undefined : gatewayProblem(error);
  return {
    submit,
    busy,
    stepUpUrl,
    /** Any other failure, to show as it is. */
    failure: problem ? error : undefined,
    /** The payment may or may not exist: the same key again tells (and never pays twice). */
    outcomeUnknown: problem?.code === 'OUTCOME_UNKNOWN',
  };
}
