import { useGatewayWindow } from '../lib/gateway-window';

interface SignInScreenProps {
  gatewayUrl: string;
  /** Signed in, not connected yet: where the gateway sends the user to connect their bank. */
  connectUrl?: string;
  /** Why the user is here (signed out, access revoked…): said once, instead of the welcome line. */
  notice?: string;
  /** The sign-in (or connection) window came back: ask the gateway who is signed in now. */
  onFinished: () => void;
}

/**
 * Signed out, or signed in without a bank connection. Sign-in happens at the gateway (its identity
 * provider with password and second factor, then the consumer information and consent pages), in
 * a window of its own that the gateway sends back to the app when it is done.
 */
export function SignInScreen({ gatewayUrl, connectUrl, notice, onFinished }: SignInScreenProps) {
  const { state, open } = useGatewayWindow(onFinished);
  const link = connectUrl ?? `${gatewayUrl}/auth/login`;
  const lead = connectUrl
    ? 'You are signed in. Connect your bank to see your accounts and make payments.'
    : 'Your accounts, spending and payments in one place. Sign in with your password and authenticator code.';
  return (
    <main className="narrow">
      <h1>Kete</h1>
      {notice ? (
        <p role="status" className="notice">
          {notice}
        </p>
      ) : (
        <p>{lead}</p>
      )}
      <button type="button" className="primary" onClick={() => open(link)} disabled={state === 'waiting'}>
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
