import { WEBHOOK_TYPES } from '@open-finance-gateway/common/webhook-events';
import type { LoggedEvent } from '../../event-log/event-log.js';
import type { SubscriptionContext } from '../context.js';
import { userEvents } from './user-events.js';

/**
 * One sync subscription's own state, which its first results (the catch-up from its cursor) fill:
 * where the catch-up has reached in the change log, whether it has more, and whether the
 * subscription must end (its cursor expired).
 */
export interface SyncCatchUp {
  cursor: string;
  more: boolean;
  /** The ledger's epoch and the change log position the catch-up reached: live events up to it are already in it. */
  epoch: string | undefined;
  reached: number | undefined;
  /** A live event of another epoch came: the app's copy is of a ledger since dropped (sync from the start). */
  expired: boolean;
  ended: boolean;
}

/** What a sync subscription's resolver is handed: its catch-up, or a live event that changed the ledger. */
export type SyncRoot = { catchUp: SyncCatchUp } | LoggedEvent;

const ANY_TYPE: ReadonlySet<string> = new Set(WEBHOOK_TYPES);

/**
 * The source of `Subscription.transactionsSync`: first the catch-up from the client's cursor (as
 * many results as it takes), then every event whose change went to the ledger's change log (a
 * TRANSACTION webhook, an account removed, a reconciliation), each pushing the changes it made.
 * Live delivery starts before the catch-up is read, so nothing falls between the two; an event
 * the catch-up already covered is skipped, and one of another ledger epoch ends the subscription
 * with SYNC_CURSOR_EXPIRED.
 */
export async function syncEvents(
  context: SubscriptionContext,
  cursor: string,
): Promise<AsyncIterableIterator<SyncRoot>> {
  const live = await userEvents(context, 'TRANSACTION_SYNC', undefined, (event) => event.sync !== undefined, ANY_TYPE);
  const catchUp: SyncCatchUp = {
    cursor,
    more: true,
    epoch: undefined,
    reached: undefined,
    expired: false,
    ended: false,
  };
  const ended = (): Promise<IteratorResult<SyncRoot>> => live.return!().then(() => ({ done: true, value: undefined }));
  const onLive = (
    result: IteratorResult<LoggedEvent>,
  ): IteratorResult<SyncRoot> | Promise<IteratorResult<SyncRoot>> => {
    if (result.done || catchUp.ended) return result.done ? result : ended();
    const { epoch, to } = result.value.sync!;
    if (epoch !== catchUp.epoch) {
      catchUp.expired = true; // its result is the error; the subscription ends after it
      return { done: false, value: { catchUp } };
    }
    return catchUp.reached !== undefined && to <= catchUp.reached ? iterator.next() : result;
  };
  const iterator: AsyncIterableIterator<SyncRoot> = {
    next() {
      if (catchUp.ended) return ended();
      if (catchUp.more) return Promise.resolve({ done: false, value: { catchUp } });
      return live.next().then(onLive);
    },
    return: () => ended(),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
