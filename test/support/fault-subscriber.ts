import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { FaultUser } from './fault-deployment.js';
import type { Instance } from './instances.js';
import { track } from './leftovers.js';

const PAYMENTS = 'subscription ($after: String) { paymentUpdated(after: $after) { cursor paymentId } }';

/**
 * A graphql-ws subscriber of one user's payment events on one instance, keeping every event it
 * receives (duplicates included) so a test can count them, and waiting on arrivals, not on time.
 */
export interface FaultSubscriber {
  user: FaultUser;
  instance: Instance;
  /** Every payment id received, in order, repeats kept. */
  received: string[];
  cursors: Map<string, string>;
  lastCursor: string | undefined;
  /** How often it resubscribed after EVENTS_DROPPED (too slow a reader), from its last cursor. */
  resumed: number;
  /** Set once the subscription ended (socket closed, error): later events are not live here. */
  ended: string | undefined;
  /** Resolves true once `paymentId` arrives, false if the subscription ends or `timeoutMs` passes. */
  arrival(paymentId: string, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function subscribePayments(
  instance: Instance,
  user: FaultUser,
  origin: string,
  after?: string,
): Promise<FaultSubscriber> {
  const client = createClient({
    url: `ws://127.0.0.1:${instance.port}/graphql`,
    lazy: false,
    retryAttempts: 0,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { origin, cookie: user.cookie } });
      }
    },
    onNonLazyError: () => undefined,
  });
  const close = async () => await client.dispose();
  track(close);
  const waiters = new Set<{ id: string; resolve: (arrived: boolean) => void }>();
  const subscriber: FaultSubscriber = {
    user,
    instance,
    received: [],
    cursors: new Map(),
    lastCursor: after,
    resumed: 0,
    ended: undefined,
    arrival(paymentId, timeoutMs) {
      if (subscriber.received.includes(paymentId)) return Promise.resolve(true);
      if (subscriber.ended) return Promise.resolve(false);
      return new Promise((resolve) => {
        const waiter = { id: paymentId, resolve };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        waiter.resolve = (arrived) => {
          clearTimeout(timer);
          resolve(arrived);
        };
        waiters.add(waiter);
      });
    },
    close,
  };
  const end = (reason: string) => {
    subscriber.ended ??= reason;
    for (const waiter of waiters) waiter.resolve(false);
    waiters.clear();
  };
  // A client told it read too slowly (EVENTS_DROPPED) resumes after the last cursor it got, as
  // the error asks: what it then receives is still this one live subscriber's.
  const follow = (from: string | undefined) => {
    const iterator = client.iterate<{ paymentUpdated: { cursor: string; paymentId: string } }>({
      query: PAYMENTS,
      variables: { after: from },
    });
    void (async () => {
      try {
        for await (const result of iterator) {
          if (!result.data) return end(JSON.stringify(result.errors));
          const { paymentId, cursor } = result.data.paymentUpdated;
          subscriber.received.push(paymentId);
          subscriber.cursors.set(paymentId, cursor);
          subscriber.lastCursor = cursor;
          for (const waiter of [...waiters])
            if (waiter.id === paymentId) {
              waiters.delete(waiter);
              waiter.resolve(true);
            }
        }
        end('completed');
      } catch (error) {
        // graphql-ws throws the subscription's error payload (an array of GraphQL errors).
        const first = Array.isArray(error) ? (error[0] as { extensions?: Record<string, unknown> }) : undefined;
        if (first?.extensions?.code !== 'EVENTS_DROPPED')
          return end(error instanceof Error ? error.message : JSON.stringify(error));
        // Resuming where nothing was gained would drop again at once: then the backlog exceeds
        // what one subscription may queue, and this reader cannot catch up.
        if (subscriber.lastCursor === from) return end('EVENTS_DROPPED again with no event received since resuming');
        subscriber.resumed += 1;
        follow(subscriber.lastCursor ?? String(first.extensions.cursor));
      }
    })();
  };
  const started = instance.events.more('subscription-started', 1);
  follow(after);
  await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  return subscriber;
}
