import { useGatewayWindow } from '../lib/gateway-window';

interface StepUpPromptProps {
  /** `extensions.stepUpUrl` of the STEP_UP_REQUIRED error. */
  url: string;
  /** Called once the gateway has the fresh second factor: send the same request again. */
  onStepUp: () => void;
}

/** The gateway wants a fresh second factor before money moves: authenticate again, then carry on. */
export function StepUpPrompt({ url, onStepUp }: StepUpPromptProps) {
  const { state, open } = useGatewayWindow(onStepUp);
  return (
    <div role="alertdialog" aria-label="Confirm it’s you" className="confirm">
      <p>For your security, confirm it’s you (password and authenticator code) before the money moves.</p>
      <button type="button" onClick={() => open(url)} disabled={state === 'waiting'}>
        {state === 'waiting' ? 'Waiting for confirmation…' : 'Confirm it’s you'}
      </button>
      {state === 'blocked' && <p role="alert">Allow pop-ups for this site, then try again.</p>}
      {state === 'closed' && <p role="alert">The window was closed before you confirmed. Try again.</p>}
    </div>
  );
}
