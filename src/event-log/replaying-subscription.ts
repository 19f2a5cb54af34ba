import type { EventSubscription, LoggedEvent } from './event-log.js';
import { compareCursors, SubscriptionQueue } from './subscription-queue.js';

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
  /** At most `limit` retained events after the cursor, oldest first. */
  readAfter(cursor: string, limit: number): Promise<LoggedEvent[]>;
}

/**
 * A subscriber that resumes: live delivery starts first, then the retained events after the
 * cursor are read a page (`maxQueued` events) at a time, each page only once the reader has taken
 * the previous one, so a reader any distance behind catches up at its own pace and is never
 * dropped for it (only a live subscriber that stops reading is). Live events arriving meanwhile
 * are held, at most `maxQueued`: once a page reaches the end of the log and the held ones fit,
 * they follow and the subscription is live; held ones past the bound are dropped and read from
 * the log by the next page instead. An event held is in the log before the next page is read, so
 * there is no gap, and cursors only increase, so there is no duplicate at the seam. A failure to
 * start, an expired cursor or a failed read ends the subscription with that error. Shared by the
 * memory and Redis logs.
 */
export function replayingSubscription(options: ReplayingSubscriptionOptions): SubscriptionQueue & EventSubscription {
  const { after, maxQueued } = options;
  let stop: () => void = () => undefined;
  const queue = new SubscriptionQueue(maxQueued, () => stop(), after);
  let held: LoggedEvent[] | undefined = after === undefined ? undefined : [];
  let overflowed = false;
  const following = options.follow((event) => {
    if (!held) queue.push(event);
    else if (held.length < maxQueued) held.push(event);
    else overflowed = true;
  });
  stop = following.stop;
  const started = following.ready ?? Promise.resolve();
  const end = (error: unknown) => {
    stop();
    queue.fail(error instanceof Error ? error : new Error(String(error)));
  };
  if (after === undefined) {
    // The caller may never look at `started`; its failure also ends the queue.
    started.catch(end);
    return Object.assign(queue, { started });
  }
  const checked = started.then(() => options.checkCursor(after));
  checked.catch(end);
  let position = after;
  queue.refill = async () => {
    await checked;
    // From here, whatever is announced is held or, if held overflows, in a later page.
    held = [];
    overflowed = false;
    const page = await options.readAfter(position, maxQueued);
    for (const event of page) queue.push(event);
    position = page.at(-1)?.cursor ?? position;
    if (page.length >= maxQueued || overflowed) return;
    const live = held.filter((event) => compareCursors(event.cursor, position) > 0);
    if (queue.size + live.length > maxQueued) return;
    held = undefined;
    queue.refill = undefined;
    for (const event of live) queue.push(event);
  };
  return Object.assign(queue, { started });
}
