import { useCallback } from 'react';
import { useGatewayWindow } from '../lib/gateway-window';

interface SignInScreenProps {
  gatewayUrl: string;
  /** Signed in, not connected yet: where the gateway sends the user to connect their bank. */
  connectUrl?: string;
  onSignedIn: () => void;
}

const connected = (session: { connected: boolean }) => session.connected;

/**
 * Signed out, or signed in without a bank connection. Sign-in happens at the gateway (its identity
 * provider with password and second factor, then the consumer information and consent pages), in
 * a window of its own; this screen carries on once the gateway reports a connected session.
 */
export function SignInScreen({ gatewayUrl, connectUrl, onSignedIn }: SignInScreenProps) {
  const finished = useCallback(() => onSignedIn(), [onSignedIn]);
  const { state, open } = useGatewayWindow(connected, finished);
  const url = connectUrl ?? `${gatewayUrl}/auth/login?returnTo=%2Fgraphql`;
  return (
    <main className="narrow">
      <h1>Your money, in one place</h1>
      <p>
        {connectUrl
          ? 'You are signed in. Connect your bank to see your accounts and make payments.'
          : 'You are signed out. Sign in with your password and authenticator code.'}
      </p>
      <button type="button" className="primary" onClick={() => open(url)} disabled={state === 'waiting'}>
        {connectUrl ? 'Connect your bank' : 'Sign in'}
      </button>
      {state === 'waiting' && (
        <p role="status" aria-live="polite">
          Finish in the window that opened…
        </p>
      )}
      {state === 'blocked' && <p role="alert">Allow pop-ups for this site, then try again.</p>}
      {state === 'closed' && <p role="alert">The window was closed before you finished. Try again.</p>}
    </main>
  );
}
