import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { fetchExchange, Client as UrqlClient } from '@urql/core';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { track } from '../support/leftovers.js';
import { sessionCookie as cookieOf } from '../support/session-cookie.js';
import { wsUrl } from '../support/sockets.js';
import { deliver, signedHeaders, signedInUser } from '../support/webhooks.js';

const ME = gql`
  query Me {
    me {
      id
    }
  }
`;

/** What a browser's `credentials: 'include'` does for these requests: send the session cookie. */
function withCookie(cookie: string | undefined): typeof fetch {
  return (input, init = {}) =>
    fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...(cookie ? { cookie } : {}) },
    });
}

async function sessionCookie(gateway: TestGateway) {
  const { browser, state } = await signedInUser(gateway);
  return { cookie: cookieOf(browser, gateway.url), state };
}

describe('standard clients, out of the box', () => {
  it('Apollo Client 4: HttpLink with credentials reads data; without a session the error is UNAUTHENTICATED, not a bare 401', async () => {
    const gateway = await startGateway();
    const { cookie } = await sessionCookie(gateway);
    const client = new ApolloClient({
      link: new HttpLink({ uri: `${gateway.url}/graphql`, credentials: 'include', fetch: withCookie(cookie) }),
      cache: new InMemoryCache(),
    });
    const { data } = await client.query<{ me: { id: string } }>({ query: ME });
    expect(data?.me.id).toMatch(/^user_/);

    const anonymous = new ApolloClient({
      link: new HttpLink({ uri: `${gateway.url}/graphql`, credentials: 'include', fetch: withCookie(undefined) }),
      cache: new InMemoryCache(),
    });
    const failure = await anonymous.query({ query: ME }).catch((error: unknown) => error);
    expect(CombinedGraphQLErrors.is(failure)).toBe(true);
    expect((failure as CombinedGraphQLErrors).errors[0]!.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('Apollo Client 4: GraphQLWsLink over graphql-ws from Node (no Origin) receives a live event', async () => {
    const gateway = await startGateway();
    const { cookie, state } = await sessionCookie(gateway);
    const wsClient = createClient({
      url: wsUrl(gateway),
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { cookie } });
        }
      },
    });
    track(() => wsClient.dispose());
    const client = new ApolloClient({ link: new GraphQLWsLink(wsClient), cache: new InMemoryCache() });
    const started = gateway.subscriptionsStarted(1, 'INCOME');
    const received = new Promise<string>((resolve, reject) => {
      const subscription = client
        .subscribe<{ incomeEvents: { incomeId: string } }>({
          query: gql`
            subscription {
              incomeEvents {
                incomeId
              }
            }
          `,
        })
        .subscribe({
          next: (result) => {
            if (result.data) resolve(result.data.incomeEvents.incomeId);
          },
          error: reject,
        });
      track(() => subscription.unsubscribe());
    });
    await started;
    const body = JSON.stringify({ webhook_type: 'INCOME', webhook_code: 'UPDATE', state, item_id: 'income_apollo' });
    expect((await deliver(gateway, body, signedHeaders(gateway, body))).status).toBe(200);
    expect(await received).toBe('income_apollo');
  });

  it('urql 6: its default GET is refused by CSRF prevention; preferGetMethod: false (POST) works, and so does GET with the documented header', async () => {
    const gateway = await startGateway();
    const { cookie } = await sessionCookie(gateway);
    const urql = (options: { get?: boolean; headers?: Record<string, string> }) =>
      new UrqlClient({
        url: `${gateway.url}/graphql`,
        exchanges: [fetchExchange],
        fetch: withCookie(cookie),
        ...(options.get === undefined ? {} : { preferGetMethod: options.get }),
        fetchOptions: { headers: options.headers ?? {} },
      });
    const byDefault = await urql({}).query(ME, {}).toPromise();
    expect(byDefault.error?.message).toMatch(/CSRF|preflight/i);
    const posted = await urql({ get: false }).query(ME, {}).toPromise();
    expect(posted.error).toBeUndefined();
    expect((posted.data as { me: { id: string } }).me.id).toMatch(/^user_/);
    const refused = await urql({ get: true }).query(ME, {}).toPromise();
    expect(refused.error?.message).toMatch(/CSRF|preflight/i);
    const answered = await urql({ get: true, headers: { 'apollo-require-preflight': 'true' } })
      .query(ME, {})
      .toPromise();
    expect(answered.error).toBeUndefined();
    expect((answered.data as { me: { id: string } }).me.id).toMatch(/^user_/);
  });
});
