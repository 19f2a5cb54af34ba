import type { LoggedEvent } from './pubsub.js';
import { SubscriberQueue } from './subscriber-queue.js';

export interface ReplayingSubscriptionOptions {
  maxQueued: number;
  /**
   * Starts live delivery into `deliver`; returns how to stop it and, when starting takes a round
   * trip, when it has started. The replay is read only after that.
   */
  follow(deliver: (event: LoggedEvent) => void): { stop(): void; ready?: Promise<void> };
  /** The retained events after the cursor, oldest first; undefined when there is no cursor. */
  replay: (() => Promise<LoggedEvent[]>) | undefined;
  signal?: AbortSignal;
}

/**
 * A subscriber that resumes: live delivery starts first and is held, the retained events after
 * the cursor are read and queued, then the held live events follow, each skipped if replay
 * already delivered it. So there is no gap (live starts before the replay is read) and no
 * duplicate (events are ordered by cursor) at the seam. Shared by the memory and Redis logs.
 */
export function replayingSubscription(options: ReplayingSubscriptionOptions): SubscriberQueue {
  let stop: () => void = () => undefined;
  const queue = new SubscriberQueue(options.maxQueued, () => stop());
  let held: LoggedEvent[] | undefined = options.replay ? [] : undefined;
  const following = options.follow((event) => (held ? held.push(event) : queue.push(event)));
  stop = following.stop;
  options.signal?.addEventListener('abort', () => void queue.return(), { once: true });
  const replay = options.replay;
  const started = following.ready ?? Promise.resolve();
  started.catch((error: unknown) => {
    stop();
    queue.fail(error instanceof Error ? error : new Error(String(error)));
  });
  if (replay) {
    started.then(replay).then(
      (events) => {
        for (const event of events) queue.push(event);
        const live = held ?? [];
        held = undefined;
        for (const event of live) queue.push(event);
      },
      (error: unknown) => {
        stop();
        queue.fail(error instanceof Error ? error : new Error(String(error)));
      },
    );
  }
  return queue;
}
