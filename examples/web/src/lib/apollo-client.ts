import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { OperationTypeNode, print, type DocumentNode } from 'graphql';
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
 * The id codegen gave the document (`__meta__.hash`, `sha256:<hex>` of its stored text): the key of
 * persisted-documents.json, which a gateway with TRUSTED_DOCUMENTS runs by. A document codegen did
 * not write gets the sha256 of its printed text, as Apollo's automatic persisted queries do.
 */
async function documentId(document: DocumentNode): Promise<string> {
  const generated = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  if (typeof generated === 'string') return generated;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(print(document)));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
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
  // Every operation goes out by id, on both links: over HTTP without its text; over the socket the
  // text goes along (graphql-ws requires one) and a gateway with TRUSTED_DOCUMENTS ignores it. A
  // gateway without the manifest answers PERSISTED_QUERY_NOT_SUPPORTED and the link sends texts.
  const byId = createPersistedQueryLink({ generateHash: documentId });
  const link = byId.concat(
    ApolloLink.split(
      (operation) => operation.operationType === OperationTypeNode.SUBSCRIPTION,
      new GraphQLWsLink(socket),
      http,
    ),
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
