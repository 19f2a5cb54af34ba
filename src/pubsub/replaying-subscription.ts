import type { EventSubscription, LoggedEvent } from './pubsub.js';
import { SubscriberQueue } from './subscriber-queue.js';

export interface ReplayingSubscriptionOptions {
  maxQueued: number;
  /**
   * Starts live delivery into `deliver`; returns how to stop it and, when starting takes a round
   * trip, when it has started. The replay is read only after that.
   */
  follow(deliver: (event: LoggedEvent) => void): { stop(): void; ready?: Promise<void> };
  /** Resume after this cursor; undefined: live events only. */
  after: string | undefined;
  /** Throws CursorExpiredError when `after` cannot be resumed from. */
  checkCursor(cursor: string): Promise<void>;
  /** The retained events after the cursor, oldest first. */
  readAfter(cursor: string): Promise<LoggedEvent[]>;
}

/**
 * A subscriber that resumes: live delivery starts first and is held, the cursor is checked and
 * the retained events after it are read and queued, then the held live events follow, each
 * skipped if replay already delivered it. So there is no gap (live starts before the replay is
 * read) and no duplicate (events are ordered by cursor) at the seam. A failure to start, an
 * expired cursor or a failed read ends the subscription with that error. Shared by the memory
 * and Redis logs.
 */
export function replayingSubscription(options: ReplayingSubscriptionOptions): SubscriberQueue & EventSubscription {
  let stop: () => void = () => undefined;
  const queue = new SubscriberQueue(options.maxQueued, () => stop());
  const { after } = options;
  let held: LoggedEvent[] | undefined = after === undefined ? undefined : [];
  const following = options.follow((event) => (held ? held.push(event) : queue.push(event)));
  stop = following.stop;
  const started = following.ready ?? Promise.resolve();
  // The caller may never look at `started`; its failure also ends the queue (below).
  started.catch(() => undefined);
  started
    .then(async () => {
      if (after === undefined) return;
      await options.checkCursor(after);
      for (const event of await options.readAfter(after)) queue.push(event);
      const live = held ?? [];
      held = undefined;
      for (const event of live) queue.push(event);
    })
    .catch((error: unknown) => {
      stop();
      queue.fail(error instanceof Error ? error : new Error(String(error)));
    });
  return Object.assign(queue, { started });
}
