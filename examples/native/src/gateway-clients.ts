import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { PAYMENT_UPDATED, type PaymentStatus } from './operations.js';

export interface GatewayClients {
  /** Queries, mutations and subscriptions over HTTP (subscriptions as Apollo's multipart protocol). */
  http: ApolloClient;
  /** Subscriptions over graphql-ws. */
  socket: ApolloClient;
  /** The graphql-ws client under `socket`: resolves once the gateway accepted its `connection_init`. */
  socketConnected: Promise<void>;
  stop(): void;
}

/**
 * Apollo Client 4 as a native app sets it up: no cookie anywhere, the access token in
 * `Authorization: Bearer` on every HTTP request and in the socket's `connection_init` payload.
 * HttpLink sends subscriptions with `Accept: multipart/mixed;subscriptionSpec="1.0"` by itself.
 */
export function createGatewayClients(gatewayUrl: string, accessToken: string): GatewayClients {
  const http = new ApolloClient({
    link: new HttpLink({ uri: `${gatewayUrl}/graphql`, headers: { authorization: `Bearer ${accessToken}` } }),
    cache: new InMemoryCache(),
  });
  let connected!: () => void;
  const socketConnected = new Promise<void>((resolve) => (connected = resolve));
  const ws: Client = createClient({
    url: `${gatewayUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    // A function, so a reconnect (after 4401, the token expired) would send the token of the moment.
    connectionParams: () => ({ authorization: `Bearer ${accessToken}` }),
    lazy: false,
    retryAttempts: 0,
    on: { connected: () => connected() },
    onNonLazyError: () => undefined,
  });
  const socket = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
  return {
    http,
    socket,
    socketConnected,
    stop() {
      http.stop();
      socket.stop();
      void ws.dispose();
    },
  };
}

/** Everything one subscription saw of the user's payments, and a way to wait for one's end. */
export interface PaymentFollower {
  /** The statuses seen for `paymentId`, in order, once it reached a final one. */
  finalFor(paymentId: string): Promise<string[]>;
  stop(): void;
}

/** Subscribes to `paymentUpdated` through `client` (over its own transport) and keeps each status. */
export function followPayments(client: ApolloClient): PaymentFollower {
  const seen = new Map<string, string[]>();
  const finished = new Map<string, string[]>();
  const waiting = new Map<string, (statuses: string[]) => void>();
  let failed: ((error: unknown) => void) | undefined;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  failure.catch(() => undefined);
  const subscription = client.subscribe({ query: PAYMENT_UPDATED }).subscribe({
    next: (result) => {
      if (result.error) return failed?.(result.error);
      const payment: PaymentStatus | null | undefined = result.data?.paymentUpdated.payment;
      if (!payment) return;
      const statuses = [...(seen.get(payment.id) ?? []), payment.status];
      seen.set(payment.id, statuses);
      if (!payment.final) return;
      finished.set(payment.id, statuses);
      waiting.get(payment.id)?.(statuses);
    },
    error: (error: unknown) => failed?.(error),
    complete: () => failed?.(new Error('the subscription ended before the payment was final')),
  });
  return {
    finalFor: (paymentId) =>
      Promise.race([
        new Promise<string[]>((resolve) => {
          const statuses = finished.get(paymentId);
          if (statuses) resolve(statuses);
          else waiting.set(paymentId, resolve);
        }),
        failure,
      ]),
    stop: () => subscription.unsubscribe(),
  };
}
