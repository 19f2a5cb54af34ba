import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { OperationTypeNode } from 'graphql';
import { createClient } from 'graphql-ws';
import type { TransactionsPageQuery } from '../__generated__/graphql';

/** The gateway closes a socket with this code when its session ends (signed out, revoked, expired). */
const SESSION_ENDED = 4401;

type TransactionPage = TransactionsPageQuery['transactions'];

export interface ApolloSetup {
  gatewayUrl: string;
  /** Called when the gateway ends the session under a live socket. */
  onSessionEnded: () => void;
}

/**
 * Queries and mutations over HTTP, subscriptions over graphql-ws, both carrying the gateway's
 * HttpOnly session cookie: `credentials: 'include'` because the app runs on another origin (the
 * same site), and the WebSocket sends the cookie by itself.
 */
export function createApolloClient({ gatewayUrl, onSessionEnded }: ApolloSetup): ApolloClient {
  const http = new HttpLink({ uri: `${gatewayUrl}/graphql`, credentials: 'include' });
  const socket = createClient({ url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`, lazy: true });
  socket.on('closed', (event) => {
    if ((event as { code?: number }).code === SESSION_ENDED) onSessionEnded();
  });
  const link = ApolloLink.split(
    (operation) => operation.operationType === OperationTypeNode.SUBSCRIPTION,
    new GraphQLWsLink(socket),
    http,
  );
  return new ApolloClient({ link, cache: createCache() });
}

function createCache(): InMemoryCache {
  return new InMemoryCache({
    typePolicies: {
      Query: {
        fields: {
          transactions: {
            // One list per filter; pages fetched with `after` are appended to it.
            keyArgs: ['accountId', 'start', 'end'],
            merge(existing: TransactionPage | undefined, incoming: TransactionPage, { args }) {
              if (!existing || !args?.after) return incoming;
              return { ...incoming, edges: [...existing.edges, ...incoming.edges] };
            },
          },
        },
      },
    },
  });
}
