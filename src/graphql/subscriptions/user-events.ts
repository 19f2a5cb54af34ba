import type { WebhookType } from '@open-finance-gateway/common/webhook-events';
import { CursorExpiredError, type LoggedEvent, type UserEvent } from '../../event-log/event-log.js';
import { EventsDroppedError } from '../../event-log/subscription-queue.js';
import { parseInstant } from '../../lib/instant.js';
import type { SubscriptionContext } from '../context.js';
import { ErrorCode, gatewayError } from '../errors.js';

/**
 * The signed-in user's events of one webhook type, optionally narrowed. Always the user's own
 * channel: arguments can only narrow it, never point it at someone else. `return()` reaches the
 * event log at once, so a completed subscription stops holding a queue. With `after`, the
 * retained events after that cursor come first; a cursor that cannot be resumed from ends the
 * subscription with CURSOR_EXPIRED, a subscriber that fell too far behind with EVENTS_DROPPED.
 * Each event first checks that the session is still live, so an expired session's token is never
 * used. Resolves once live delivery has started.
 */
/**
 * The `subscribe` of a live field: the user's events of `type` (resuming after `args.after`),
 * only those about the item the argument `itemArg` names when the client gave one.
 */
export function eventsAbout(type: WebhookType, itemArg?: string) {
  return ({ context, args }: { context: unknown; args: Record<string, unknown> }) => {
    const item = itemArg ? args[itemArg] : undefined;
    return userEvents(
      context as SubscriptionContext,
      type,
      args.after as string | undefined,
      item ? (event) => event.payload.item_id === item : undefined,
    );
  };
}

export async function userEvents(
  context: SubscriptionContext,
  type: WebhookType | 'TRANSACTION_SYNC',
  after: string | undefined,
  accept: (event: LoggedEvent) => boolean = () => true,
  /** The event types it follows: `type` alone unless given (the label stays `type`). */
  types: ReadonlySet<string> = new Set([type]),
): Promise<AsyncIterableIterator<LoggedEvent>> {
  const source = context.eventLog.subscribe(context.user.id, { after: after ?? undefined });
  // Answer the subscribe only once live delivery is in effect: an event published after that is
  // never missed, and a log that cannot be reached is this operation's error, not a silent subscription.
  await source.started;
  context.onStarted?.(context.user.id, type);
  context.logger.debug({ userId: context.user.id, type }, 'subscription started');
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    context.onEnded?.(context.user.id, type);
  };
  const failed = (error: unknown): never => {
    end();
    if (error instanceof EventsDroppedError)
      throw gatewayError(ErrorCode.EVENTS_DROPPED, error.message, error.cursor ? { cursor: error.cursor } : {});
    if (error instanceof CursorExpiredError) throw gatewayError(ErrorCode.CURSOR_EXPIRED, error.message);
    throw error;
  };
  const arrived = async (result: IteratorResult<LoggedEvent>): Promise<IteratorResult<LoggedEvent>> => {
    if (result.done) {
      end();
      return result;
    }
    if (!types.has(result.value.type) || !accept(result.value)) return iterator.next();
    // The event's work uses the session's token: never after the session ended or lapsed.
    if (!(await context.session.isLive())) {
      await source.return?.();
      end();
      return { value: undefined, done: true };
    }
    return result;
  };
  const iterator: AsyncIterableIterator<LoggedEvent> = {
    // Not async: an idle subscription waits here for its life, and a suspended async frame
    // costs several hundred bytes per socket; a pending promise and shared callbacks, less.
    next() {
      return source.next().then(arrived, failed);
    },
    return() {
      return source.return!().finally(end);
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
