import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { createMemoryDeliveryMarks, deliveryMarkKey, type DeliveryMarks } from './delivery-marks.js';
import {
  CursorExpiredError,
  type EventLog,
  type EventSubscription,
  type LoggedEvent,
  type SeenMark,
  type SubscribeOptions,
  type UserEvent,
} from './event-log.js';
import { FanOut } from './fan-out.js';
import { replayingSubscription } from './replaying-subscription.js';
import { compareCursors, CURSOR_FORM } from './subscription-queue.js';

export interface MemoryEventLogOptions {
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

/**
 * The in-process event log: one instance. The same contract as the Redis Streams log, with a
 * bounded log per user (count and retention) so a client that reconnects resumes without loss.
 */
export function createMemoryEventLog(options: MemoryEventLogOptions): EventLog {
  return new MemoryEventLog(options);
}

class MemoryEventLog implements EventLog {
  private readonly logs = new Map<string, UserLog>();
  private readonly open = new Set<{ end(): void }>();
  private readonly maxPerUser: number;
  private readonly maxTotal: number;
  /** Whose event each retained event is, oldest first: trims the whole log in publication order. */
  private readonly order: Array<{ userId: string; cursor: string }> = [];
  private orderStart = 0;
  private lastMs = 0;
  private sequence = 0;
  private readonly marks: DeliveryMarks;

  constructor(private readonly options: MemoryEventLogOptions) {
    this.maxPerUser = options.maxPerUser ?? 1_000;
    this.maxTotal = options.maxTotal ?? 50_000;
    this.marks = options.marks ?? createMemoryDeliveryMarks({ clock: options.clock });
  }

  async publish(userId: string, event: UserEvent): Promise<string> {
    const log = this.logOf(userId);
    const logged: LoggedEvent = { ...event, cursor: this.nextCursor() };
    log.events.push(logged);
    this.order.push({ userId, cursor: logged.cursor });
    this.trim(log);
    this.trimTotal();
    log.subscribers.publish(logged);
    return logged.cursor;
  }

  async publishDelivery(
    userId: string,
    event: UserEvent,
    bodyHash: string,
    content?: { marks: readonly SeenMark[] },
  ): Promise<string | undefined> {
    // Synchronous from the check to the mark: nothing else runs in between.
    const key = deliveryMarkKey({ userId }, bodyHash);
    // An event that changed the ledger is published whatever it names: transaction syncs push its change.
    const unchanged = content ? !event.sync && this.marks.sameContent(userId, content.marks) : this.marks.isDone(key);
    if (unchanged) {
      this.marks.markDone(key);
      return undefined;
    }
    const cursor = this.publish(userId, event);
    if (content) this.marks.noteContent(userId, content.marks);
    this.marks.markDone(key);
    return cursor;
  }

  async publishChange(userId: string, event: UserEvent, marks: readonly SeenMark[]): Promise<string | undefined> {
    if (!event.sync && this.marks.sameContent(userId, marks)) return undefined;
    const cursor = this.publish(userId, event);
    this.marks.noteContent(userId, marks);
    return cursor;
  }

  async checkCursor(userId: string, cursor: string): Promise<void> {
    if (!CURSOR_FORM.test(cursor)) throw new CursorExpiredError();
    const log = this.logs.get(userId);
    if (log) this.trim(log);
    const tooOld = compareCursors(cursor, `${this.options.clock() - this.options.retentionMs}-0`) < 0;
    const trimmedPast = log?.trimmedUpTo !== undefined && compareCursors(cursor, log.trimmedUpTo) < 0;
    const newest = log?.events.at(-1)?.cursor ?? `${this.lastMs}-${this.sequence}`;
    if (tooOld || trimmedPast || compareCursors(cursor, newest) > 0) throw new CursorExpiredError();
  }

  subscribe(userId: string, subscribeOptions: SubscribeOptions = {}): EventSubscription {
    const queue = replayingSubscription({
      maxQueued: this.options.maxQueued ?? 100,
      follow: (deliver) => {
        const log = this.logOf(userId);
        log.subscribers.add(deliver);
        return {
          stop: () => {
            log.subscribers.delete(deliver);
            this.open.delete(queue);
            this.forget(userId, log);
          },
        };
      },
      after: subscribeOptions.after,
      checkCursor: (cursor) => this.checkCursor(userId, cursor),
      readAfter: async (cursor, limit) => {
        const events = this.logs.get(userId)?.events ?? [];
        const start = firstAfter(events, cursor);
        return events.slice(start, start + limit);
      },
    });
    this.open.add(queue);
    return queue;
  }

  async deleteUser(userId: string): Promise<void> {
    this.marks.forgetContent(userId);
    const log = this.logs.get(userId);
    if (!log) return;
    log.events = [];
    log.trimmedUpTo = undefined;
    this.forget(userId, log);
  }

  async close(): Promise<void> {
    for (const queue of this.open) queue.end();
    this.open.clear();
    this.logs.clear();
    this.order.length = 0;
  }

  private logOf(userId: string): UserLog {
    let log = this.logs.get(userId);
    if (!log) this.logs.set(userId, (log = { events: [], trimmedUpTo: undefined, subscribers: new FanOut() }));
    return log;
  }

  /** Cursors increase with every event, even when the clock stands still or steps back. */
  private nextCursor(): string {
    const now = this.options.clock();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.sequence = 0;
    } else this.sequence += 1;
    return `${this.lastMs}-${this.sequence}`;
  }

  private trim(log: UserLog): void {
    const oldest = `${this.options.clock() - this.options.retentionMs}-0`;
    while (
      log.events.length > 0 &&
      (log.events.length > this.maxPerUser || compareCursors(log.events[0]!.cursor, oldest) < 0)
    ) {
      log.trimmedUpTo = log.events.shift()!.cursor;
    }
  }

  /** Keeps the whole memory log under `maxTotal` events, dropping the oldest of any user. */
  private trimTotal(): void {
    const { order } = this;
    while (order.length - this.orderStart > this.maxTotal) {
      const { userId, cursor } = order[this.orderStart++]!;
      const log = this.logs.get(userId);
      // Skip entries whose event the user's own limits already dropped.
      if (log?.events[0]?.cursor === cursor) {
        log.trimmedUpTo = log.events.shift()!.cursor;
        this.forget(userId, log);
      }
    }
    if (this.orderStart > 10_000 && this.orderStart * 2 > order.length) {
      order.splice(0, this.orderStart);
      this.orderStart = 0;
    }
  }

  /** Drops a log nobody reads and nothing is in; kept while it remembers what was trimmed. */
  private forget(userId: string, log: UserLog): void {
    if (log.subscribers.size === 0 && log.events.length === 0 && log.trimmedUpTo === undefined)
      this.logs.delete(userId);
  }
}
