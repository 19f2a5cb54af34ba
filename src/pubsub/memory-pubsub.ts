import type { Logger } from '../lib/logger.js';
import type { PubSub, UserEvent } from './pubsub.js';

interface Subscriber {
  queue: UserEvent[];
  wake: (() => void) | undefined;
  done: boolean;
}

/** In-process pubsub: one gateway instance. Each subscriber's backlog is bounded. */
export function createMemoryPubSub(options: { logger: Logger; maxQueued?: number }): PubSub {
  const channels = new Map<string, Set<Subscriber>>();
  const maxQueued = options.maxQueued ?? 100;

  function remove(userId: string, subscriber: Subscriber): void {
    subscriber.done = true;
    subscriber.wake?.();
    const set = channels.get(userId);
    set?.delete(subscriber);
    if (set?.size === 0) channels.delete(userId);
  }

  return {
    async publish(userId, event) {
      for (const subscriber of channels.get(userId) ?? []) {
        if (subscriber.queue.length >= maxQueued) {
          subscriber.queue.shift();
          options.logger.warn({ userId, type: event.type }, 'subscriber too slow: dropped its oldest queued event');
        }
        subscriber.queue.push(event);
        subscriber.wake?.();
      }
    },

    subscribe(userId, signal) {
      const subscriber: Subscriber = { queue: [], wake: undefined, done: false };
      let set = channels.get(userId);
      if (!set) channels.set(userId, (set = new Set()));
      set.add(subscriber);
      signal?.addEventListener('abort', () => remove(userId, subscriber), { once: true });

      const iterator: AsyncIterableIterator<UserEvent> = {
        async next() {
          while (subscriber.queue.length === 0 && !subscriber.done) {
            await new Promise<void>((resolve) => (subscriber.wake = resolve));
            subscriber.wake = undefined;
          }
          const value = subscriber.queue.shift();
          return value ? { value, done: false } : { value: undefined, done: true };
        },
        async return() {
          remove(userId, subscriber);
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },

    async close() {
      for (const [userId, set] of channels) for (const subscriber of [...set]) remove(userId, subscriber);
    },
  };
}
