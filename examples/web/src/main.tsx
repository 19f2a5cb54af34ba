import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createApolloClient } from './lib/apollo-client';
import { gatewayUrl } from './lib/gateway-url';
import './styles.css';

const url = gatewayUrl();
let ending: Promise<void> | undefined;
/** Clears everything cached and re-asks the gateway for the session (once, however many ask at a time). */
const endSession = () =>
  (ending ??= client
    .resetStore()
    .then(() => undefined)
    .catch(() => undefined)
    .finally(() => (ending = undefined)));
const client = createApolloClient({ gatewayUrl: url, onSessionEnded: () => void endSession() });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <App gatewayUrl={url} endSession={endSession} />
    </ApolloProvider>
  </StrictMode>,
);
