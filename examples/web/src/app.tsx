import { useQuery } from '@apollo/client/react';
import { useCallback, useState } from 'react';
import { SessionDocument } from './__generated__/graphql';
import { ErrorMessage, Loading } from './components/query-state';
import { isSignedOut } from './lib/errors';
import { SignInScreen } from './screens/sign-in-screen';
import { SignedInShell } from './screens/signed-in-shell';

interface AppProps {
  gatewayUrl: string;
  /** Signs the app out locally: clears Apollo's cache and asks the gateway who is signed in. */
  endSession: () => Promise<void>;
}

/** Decides between signed out, signed in without a bank connection, and the app itself. */
export function App({ gatewayUrl, endSession }: AppProps) {
  const session = useQuery(SessionDocument);
  const [notice, setNotice] = useState<string>();
  const signedOut = useCallback(
    (reason: string) => {
      setNotice(reason);
      void endSession();
    },
    [endSession],
  );
  const signedIn = useCallback(() => {
    setNotice(undefined);
    void endSession(); // a new user: nothing cached from before may show
  }, [endSession]);

  if (session.loading && !session.data) return <Loading what="your session" />;
  const connection = session.data?.bankConnection;
  if (!connection || !connection.connected) {
    if (session.error && !isSignedOut(session.error))
      return <ErrorMessage error={session.error} retry={() => void session.refetch()} />;
    return (
      <SignInScreen gatewayUrl={gatewayUrl} connectUrl={connection?.connectUrl} notice={notice} onFinished={signedIn} />
    );
  }
  return <SignedInShell gatewayUrl={gatewayUrl} onSignedOut={signedOut} />;
}
