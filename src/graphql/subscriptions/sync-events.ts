import { WEBHOOK_TYPES } from '@open-finance-gateway/common/webhook-events';
import type { LoggedEvent } from '../../event-log/event-log.js';
import type { SubscriptionContext } from '../context.js';
import { userEvents } from './user-events.js';

/**
 * Where one sync subscription stands: the cursor it last handed out (every push continues from it),
 * whether more is waiting to be pushed at once, and whether it must end (its cursor can no longer
 * be continued from).
 */
export interface SyncProgress {
  cursor: string;
  more: boolean;
  /** The ledger's epoch and the change log position `cursor` has reached (once a push set it). */
  epoch: string | undefined;
  reached: number | undefined;
  ended: boolean;
}

/** What a sync subscription's resolver is handed: the subscription's progress, to push from. */
export interface SyncRoot {
  progress: SyncProgress;
}

const ANY_TYPE: ReadonlySet<string> = new Set(WEBHOOK_TYPES);

/**
 * The source of `Subscription.transactionsSync`. Each push is the query from the cursor the last
 * one handed out (to the change log's head), so a push never skips a change, whichever change put
 * it there: a webhook, a reconciliation, a removed account, another device's first sync, and also
 * one whose event was never published. First it catches up from the client's cursor (as many
 * pushes as it takes); then each event whose change went to the change log past what was pushed
 * (`sync`) pushes again. Live delivery starts before the catch-up is read, so nothing falls between
 * the two; an event already covered is skipped. A cursor that can no longer be continued from (an
 * event of another ledger epoch finds that) ends the subscription with SYNC_CURSOR_EXPIRED.
 */
export async function syncEvents(
  context: SubscriptionContext,
  cursor: string,
): Promise<AsyncIterableIterator<SyncRoot>> {
  const live = await userEvents(context, 'TRANSACTION_SYNC', undefined, (event) => event.sync !== undefined, ANY_TYPE);
  const progress: SyncProgress = { cursor, more: true, epoch: undefined, reached: undefined, ended: false };
  const ended = (): Promise<IteratorResult<SyncRoot>> => live.return!().then(() => ({ done: true, value: undefined }));
  const onLive = (
    result: IteratorResult<LoggedEvent>,
  ): IteratorResult<SyncRoot> | Promise<IteratorResult<SyncRoot>> => {
    if (result.done || progress.ended) return result.done ? result : ended();
    const { epoch, to } = result.value.sync!;
    if (epoch === progress.epoch && progress.reached !== undefined && to <= progress.reached) return iterator.next();
    return { done: false, value: { progress } };
  };
  const iterator: AsyncIterableIterator<SyncRoot> = {
    next() {
      if (progress.ended) return ended();
      if (progress.more) return Promise.resolve({ done: false, value: { progress } });
      return live.next().then(onLive);
    },
    return: () => ended(),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
