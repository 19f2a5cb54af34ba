import { parseInstant } from '../../lib/instant.js';
import type { UserEvent } from '../../pubsub/pubsub.js';
import type { GatewayContext } from '../context.js';

/**
 * The signed-in user's events of one webhook type, optionally narrowed. Always the user's own
 * channel: arguments can only narrow it, never point it at someone else. `return()` reaches the
 * pubsub at once, so a completed subscription stops holding a subscriber. Each event first checks
 * that the session is still live, so an expired session's token is never used.
 */
export function userEvents(context: GatewayContext, type: string, accept: (event: UserEvent) => boolean = () => true): AsyncIterableIterator<UserEvent> {
  const source = context.pubsub.subscribe(context.user.id);
  context.logger.debug({ userId: context.user.id, type }, 'subscription started');
  const iterator: AsyncIterableIterator<UserEvent> = {
    async next() {
      for (;;) {
        const result = await source.next();
        if (result.done) return result;
        if (result.value.type !== type || !accept(result.value)) continue;
        // The event's work uses the session's token: never after the session ended or lapsed.
        if (!(await context.session.isLive())) {
          await source.return?.();
          return { value: undefined, done: true };
        }
        return result;
      }
    },
    return() {
      return source.return!();
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

export function stringField(event: UserEvent, name: string): string | undefined {
  const value = event.payload[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(event: UserEvent, name: string): string[] {
  const value = event.payload[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function dateField(event: UserEvent, name: string): Date | undefined {
  return parseInstant(event.payload[name]);
}
