import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { createClient as createSseClient } from 'graphql-sse';
import { recordTraffic } from './audit.js';
import type { Browser } from './browser.js';
import type { TestGateway } from './gateway.js';
import { track } from './leftovers.js';

/** One result a subscription client handed over, or how it ended. */
export type StreamItem =
  | {
      kind: 'next';
      value: { data?: Record<string, unknown> | null; errors?: Array<{ extensions?: Record<string, unknown> }> };
    }
  | { kind: 'error'; error: unknown }
  | { kind: 'complete' };

/** A queue of what a client received, read in order (no sleeping: each read waits for the next item). */
export class StreamReader {
  private readonly items: StreamItem[] = [];
  private waiting: ((item: StreamItem) => void) | undefined;

  push(item: StreamItem): void {
    recordTraffic({ url: 'stream', status: 200, headers: {}, body: JSON.stringify(item) });
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(item);
    } else this.items.push(item);
  }

  next(): Promise<StreamItem> {
    const item = this.items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The next result's data; fails on anything else. */
  async data<T>(): Promise<T> {
    const item = await this.next();
    if (item.kind !== 'next' || !item.value.data) throw new Error(`expected data, got ${JSON.stringify(item)}`);
    return item.value.data as T;
  }
}

/** A fetch that sends the session cookie (a browser's `credentials: 'include'`) and any extra headers. */
export function fetchWith(headers: Record<string, string>): typeof fetch {
  return (input, init = {}) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init.headers).entries()), ...headers } });
}

/** Apollo Client 4's HttpLink in Node: a subscription over Apollo's multipart protocol. */
export function multipartSubscription(
  gateway: Pick<TestGateway, 'url'>,
  headers: Record<string, string>,
  query: string,
  variables: Record<string, unknown> = {},
) {
  const client = new ApolloClient({
    link: new HttpLink({ uri: `${gateway.url}/graphql`, fetch: fetchWith(headers) }),
    cache: new InMemoryCache(),
  });
  const reader = new StreamReader();
  const subscription = client.subscribe({ query: gql(query), variables }).subscribe({
    // Apollo Client 4 hands errors over as `error` on a result (GraphQL or the protocol's own).
    next: (value) =>
      reader.push(value.error ? { kind: 'error', error: value.error } : { kind: 'next', value: value as never }),
    error: (error: unknown) => reader.push({ kind: 'error', error }),
    complete: () => reader.push({ kind: 'complete' }),
  });
  const stop = () => {
    subscription.unsubscribe();
    client.stop();
  };
  track(stop);
  return { reader, stop };
}

/** graphql-sse's own client (distinct connections mode), no retries. */
export function sseSubscription(
  gateway: Pick<TestGateway, 'url'>,
  headers: Record<string, string>,
  query: string,
  variables: Record<string, unknown> = {},
) {
  const client = createSseClient({
    url: `${gateway.url}/graphql/stream`,
    headers,
    retryAttempts: 0,
  });
  const reader = new StreamReader();
  const stop = client.subscribe(
    { query, variables },
    {
      next: (value) => reader.push({ kind: 'next', value: value as never }),
      error: (error: unknown) => reader.push({ kind: 'error', error }),
      complete: () => reader.push({ kind: 'complete' }),
    },
  );
  track(() => {
    stop();
    client.dispose();
  });
  return { reader, stop };
}

/** The signed-in user revokes all access over plain HTTP (what ends their streams); returns the answer. */
export async function revokeAllAccessAs(gateway: TestGateway, browser: Browser): Promise<unknown> {
  const revoked = await browser.request(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation { revokeAllAccess { revoked } }' }),
  });
  return JSON.parse(revoked.text);
}
