import { useCallback, useRef, useState } from 'react';
import { gatewayProblem, stepUpUrlOf } from './errors';

/**
 * Where one payment or transfer intent stands:
 * - `editing`: the form can change (nothing sent yet, or a definite refusal to correct);
 * - `sending`: locked, the request is out;
 * - `step-up`: locked, the gateway wants a fresh second factor first (nothing was sent);
 * - `unknown`: locked, the answer was lost, so the money may have moved: only a retry of the same
 *   intent is offered, and its idempotency key makes the platform answer with what happened;
 * - `done`: sent; the result is shown, and only "New payment" starts another intent.
 */
export type IntentPhase = 'editing' | 'sending' | 'step-up' | 'unknown' | 'done';

interface Intent<Input> {
  key: string;
  input: Input;
  /** The input as sent, to tell a retry of this intent from an edited, new one. */
  fingerprint: string;
}

/**
 * Money moves once per intent. An intent (the form's contents) gets one idempotency key, kept for
 * every retry of it: after a step-up, a lost answer or a refusal resent as it was. An edit after a
 * refusal is a new intent with a new key. A second submit while one is out, or after it was sent,
 * is ignored before it reaches the network (a double click sends one request).
 */
export function useMoneyMutation<Input, Result>(send: (input: Input, idempotencyKey: string) => Promise<Result>) {
  const intent = useRef<Intent<Input> | undefined>(undefined);
  // Checked and set synchronously: a second submit (a double click, Enter twice) finds it set,
  // whenever React gets to render the disabled button.
  const locked = useRef(false);
  const [phase, setPhase] = useState<IntentPhase>('editing');
  const [result, setResult] = useState<Result>();
  const [error, setError] = useState<unknown>();

  const submit = useCallback(
    async (input: Input): Promise<void> => {
      if (locked.current) return;
      locked.current = true;
      const fingerprint = JSON.stringify(input);
      if (intent.current?.fingerprint !== fingerprint)
        intent.current = { key: crypto.randomUUID(), input, fingerprint };
      setPhase('sending');
      setError(undefined);
      try {
        setResult(await send(input, intent.current.key));
        setPhase('done'); // stays locked until reset()
      } catch (caught) {
        setError(caught);
        setPhase(phaseAfter(caught));
        locked.current = false; // a retry may go; in `unknown` and `step-up` only of this intent (retry)
      }
    },
    [send],
  );
  /** Sends the same intent again, with its key (after a step-up, or to learn a lost answer). */
  const retry = useCallback(() => {
    if (intent.current) void submit(intent.current.input);
  }, [submit]);
  /** "New payment": forget the intent and its result; the next submit is a new intent with a new key. */
  const reset = useCallback(() => {
    intent.current = undefined;
    locked.current = false;
    setResult(undefined);
    setError(undefined);
    setPhase('editing');
  }, []);

  const stepUpUrl = phase === 'step-up' ? stepUpUrlOf(error) : undefined;
  return {
    phase,
    /** The form may change: nothing is out, and nothing was sent that a retry must match. */
    editable: phase === 'editing',
    submit,
    retry,
    reset,
    result,
    stepUpUrl,
    /** A failure to show as it is (not a step-up). */
    failure: phase === 'editing' || phase === 'unknown' ? error : undefined,
  };
}

/** After a failure: a step-up, an unknown outcome (the answer lost on the way), or a refusal to correct. */
function phaseAfter(error: unknown): IntentPhase {
  if (stepUpUrlOf(error)) return 'step-up';
  const code = gatewayProblem(error)?.code;
  return code === 'OUTCOME_UNKNOWN' || code === 'NETWORK' ? 'unknown' : 'editing';
}
