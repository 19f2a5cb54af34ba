import { FanOut } from './fan-out.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { createMemoryDeliveryMarks, deliveryMarkKey, type DeliveryMarks } from './delivery-marks.js';
import { CursorExpiredError, type LoggedEvent, type PubSub } from './pubsub.js';
import { replayingSubscription } from './replaying-subscription.js';
import { compareCursors, CURSOR_FORM } from './subscriber-queue.js';

export interface MemoryPubSubOptions {
  logger: Logger;
  clock: Clock;
  /** How long events are kept for resuming. */
  retentionMs: number;
  /** Events kept per user at most (the memory log is bounded whatever the retention). @default 1000 */
  maxPerUser?: number;
  /** Events kept across all users at most; the oldest go first. @default 50000 */
  maxTotal?: number;
  /** Per subscriber. @default 100 */
  maxQueued?: number;
  /** The delivery marks shared with the memory delivery ledger (a private set when omitted). */
  marks?: DeliveryMarks;
}

interface UserLog {
  events: LoggedEvent[];
  /** The cursor of the newest event dropped from this log: resuming from before it would skip it. */
  trimmedUpTo: string | undefined;
  subscribers: FanOut;
}

/**
 * The in-process event log: one instance. The same contract as the Redis Streams log, with a
 * bounded log per user (count and retention) so a client that reconnects resumes without loss.
 */
/** The index of the first event after `cursor` in events ordered by cursor (a binary search). */
function firstAfter(events: LoggedEvent[], cursor: string): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (compareCursors(events[middle]!.cursor, cursor) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

export function createMemoryPubSub(options: MemoryPubSubOptions): PubSub {
  const logs = new Map<string, UserLog>();
  const open = new Set<{ end(): void }>();
  const maxPerUser = options.maxPerUser ?? 1_000;
  const maxTotal = options.maxTotal ?? 50_000;
  /** Whose event each retained event is, oldest first: trims the whole log in publication order. */
  const order: Array<{ userId: string; cursor: string }> = [];
  let orderStart = 0;
  let lastMs = 0;
  let sequence = 0;
  const marks = options.marks ?? createMemoryDeliveryMarks({ clock: options.clock });

  function logOf(userId: string): UserLog {
    let log = logs.get(userId);
    if (!log) logs.set(userId, (log = { events: [], trimmedUpTo: undefined, subscribers: new FanOut() }));
    return log;
  }

  function nextCursor(): string {
    const now = options.clock();
    if (now > lastMs) {
      lastMs = now;
      sequence = 0;
    } else sequence += 1;
    return `${lastMs}-${sequence}`;
  }

  function trim(log: UserLog): void {
    const oldest = `${options.clock() - options.retentionMs}-0`;
    while (
      log.events.length > 0 &&
      (log.events.length > maxPerUser || compareCursors(log.events[0]!.cursor, oldest) < 0)
    ) {
      log.trimmedUpTo = log.events.shift()!.cursor;
    }
  }

  /** Keeps the whole memory log under `maxTotal` events, dropping the oldest of any user. */
  function trimTotal(): void {
    while (order.length - orderStart > maxTotal) {
      const { userId, cursor } = order[orderStart++]!;
      const log = logs.get(userId);
      // Skip entries whose event the user's own limits already dropped.
      if (log?.events[0]?.cursor === cursor) {
        log.trimmedUpTo = log.events.shift()!.cursor;
        forget(userId, log);
      }
    }
    if (orderStart > 10_000 && orderStart * 2 > order.length) {
      order.splice(0, orderStart);
      orderStart = 0;
    }
  }

  /** Drops a log nobody reads and nothing is in; kept while it remembers what was trimmed. */
  function forget(userId: string, log: UserLog): void {
    if (log.subscribers.size === 0 && log.events.length === 0 && log.trimmedUpTo === undefined) logs.delete(userId);
  }

  const pubsub: PubSub = {
    async publish(userId, event) {
      const log = logOf(userId);
      const logged: LoggedEvent = { ...event, cursor: nextCursor() };
      log.events.push(logged);
      order.push({ userId, cursor: logged.cursor });
      trim(log);
      trimTotal();
      log.subscribers.publish(logged);
      return logged.cursor;
    },

    async publishDelivery(userId, event, bodyHash) {
      // Synchronous from the check to the mark: nothing else runs in between.
      const key = deliveryMarkKey({ userId }, bodyHash);
      if (marks.isDone(key)) return undefined;
      const cursor = pubsub.publish(userId, event);
      marks.markDone(key);
      return cursor;
    },

    async checkCursor(userId, cursor) {
      if (!CURSOR_FORM.test(cursor)) throw new CursorExpiredError();
      const log = logs.get(userId);
      if (log) trim(log);
      const tooOld = compareCursors(cursor, `${options.clock() - options.retentionMs}-0`) < 0;
      const trimmedPast = log?.trimmedUpTo !== undefined && compareCursors(cursor, log.trimmedUpTo) < 0;
      const newest = log?.events.at(-1)?.cursor ?? `${lastMs}-${sequence}`;
      if (tooOld || trimmedPast || compareCursors(cursor, newest) > 0) throw new CursorExpiredError();
    },

    subscribe(userId, subscribeOptions = {}) {
      const queue = replayingSubscription({
        maxQueued: options.maxQueued ?? 100,
        follow(deliver) {
          const log = logOf(userId);
          log.subscribers.add(deliver);
          return {
            stop() {
              log.subscribers.delete(deliver);
              open.delete(queue);
              forget(userId, log);
            },
          };
        },
        after: subscribeOptions.after,
        checkCursor: (cursor) => pubsub.checkCursor(userId, cursor),
        readAfter: async (cursor, limit) => {
          const events = logs.get(userId)?.events ?? [];
          const start = firstAfter(events, cursor);
          return events.slice(start, start + limit);
        },
      });
      open.add(queue);
      return queue;
    },

    async deleteUser(userId) {
      const log = logs.get(userId);
      if (!log) return;
      log.events = [];
      log.trimmedUpTo = undefined;
      forget(userId, log);
    },

    async close() {
      for (const queue of open) queue.end();
      open.clear();
      logs.clear();
      order.length = 0;
    },
  };
  return pubsub;
}
