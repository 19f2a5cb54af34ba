import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { recordTraffic } from './audit.js';
import type { Browser } from './browser.js';
import type { TestGateway } from './gateway.js';
import { track } from './leftovers.js';
import { sessionCookie, sessionCookieValue } from './session-cookie.js';

export function wsUrl(gateway: TestGateway): string {
  return `${gateway.url.replace(/^http/, 'ws')}/graphql`;
}

/** A graphql-ws client that carries the browser's session cookie and a same-site Origin. */
export function socketClient(
  gateway: TestGateway,
  browser: Browser | undefined,
  origin = gateway.url,
): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  const cookie = browser && sessionCookieValue(browser, gateway.url);
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (resolveClosed = resolve));
  const client = createClient({
    url: wsUrl(gateway),
    lazy: false,
    retryAttempts: 0,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, {
          headers: { origin, ...(browser && cookie ? { cookie: sessionCookie(browser, gateway.url) } : {}) },
        });
      }
    },
    on: {
      closed: (event) =>
        resolveClosed({
          code: (event as { code: number }).code,
          reason: String((event as { reason: unknown }).reason),
        }),
      // Socket messages are client-visible traffic too: the secret-leak audit reads them.
      message: (message) =>
        recordTraffic({ url: wsUrl(gateway), status: 101, headers: {}, body: JSON.stringify(message) }),
    },
    onNonLazyError: () => undefined,
  });
  track(() => client.dispose());
  return { client, closed };
}

/** Subscribes and returns an iterator of results; resolves once the gateway has the subscription. */
export async function subscribe<T = Record<string, unknown>>(
  gateway: TestGateway,
  client: Client,
  query: string,
  type: string,
  variables?: Record<string, unknown>,
) {
  const started = gateway.subscriptionsStarted(1, type);
  const iterator = client.iterate<T>({ query, variables });
  // iterate() only sends `subscribe` when pulled: start pulling, and wait for the server's word.
  const first = iterator.next();
  first.catch(() => undefined); // a socket closed by the server ends the pull; next() still sees it
  await started;
  let pending: Promise<IteratorResult<{ data?: T | null; errors?: unknown[] }>> | undefined = first as never;
  return {
    async next(): Promise<{
      data?: T | null;
      errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
    }> {
      const result = await (pending ?? iterator.next());
      pending = undefined;
      if (result.done) throw new Error('subscription ended');
      return result.value as never;
    },
    async return() {
      await iterator.return?.();
    },
  };
}
