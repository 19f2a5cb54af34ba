import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import { deliveryMarkRedisKey, userEventsKey, userKeys } from '../redis/redis-keys.js';
import type { RedisListener } from '../redis/redis-listener.js';
import type { ReplicaWait } from '../redis/redis-replica-wait.js';
import { DEDUPLICATION_WINDOW_MS } from './delivery-marks.js';
import {
  CursorExpiredError,
  type EventLog,
  type EventSubscription,
  type SeenMark,
  type SubscribeOptions,
  type UserEvent,
} from './event-log.js';
import { decodeEntry, RedisEventReader } from './redis-event-reader.js';
import { defineEventCommands, type EventCommands } from './redis-event-scripts.js';
import { replayingSubscription } from './replaying-subscription.js';
import { compareCursors, CURSOR_FORM } from './subscription-queue.js';

export interface RedisEventLogOptions {
  /** Commands (the append script, XRANGE, XINFO). */
  redis: RedisClient;
  /** The instance's Redis listener (SUBSCRIBE), shared with the session-endings channel. */
  listener: RedisListener;
  keyPrefix: string;
  clock: Clock;
  retentionMs: number;
  logger: Logger;
  /** Per subscription. @default 100 */
  maxQueued?: number;
  /** How often each followed user's log is checked for events whose announcement was lost. @default 30000 */
  reconcileIntervalMs?: number;
  /** Resolves once enough replicas hold a delivery's append (REDIS_WAIT_REPLICAS). @default no wait */
  waitForReplicas?: ReplicaWait;
  /**
   * This instance keeps the user-data store current before it stores an event: its appends say so
   * (see redis-user-data-scripts.ts). @default false
   */
  markKeptData?: boolean;
}

/**
 * The event log on Redis: one Redis Stream per user (under the user's hash tag), trimmed by MINID to the
 * retention, and one pub/sub channel per user that announces each appended event with its
 * payload. An instance subscribes to the channels of the users that have subscribers there (one
 * SUBSCRIBE per user, not per socket) and hands each event on with no further read. A gap (an
 * announcement whose previous id is not the last one seen, as after a reconnection) is filled
 * from the log with XRANGE, so nothing is skipped and the order holds. Every command names one
 * key, so the same code runs on a single server, behind Sentinel, and on a Cluster.
 */
export function createRedisEventLog(options: RedisEventLogOptions): EventLog {
  return new RedisEventLog(options);
}

class RedisEventLog implements EventLog {
  private readonly commands: EventCommands;
  private readonly reader: RedisEventReader;
  private readonly open = new Set<{ end(): void }>();

  constructor(private readonly options: RedisEventLogOptions) {
    this.commands = defineEventCommands(options.redis, options.markKeptData ?? false);
    this.reader = new RedisEventReader(options);
  }

  async publish(userId: string, event: UserEvent): Promise<string> {
    const minId = `${this.options.clock() - this.options.retentionMs}`;
    return storeCall(() =>
      this.commands.append(this.logKey(userId), minId, JSON.stringify(event), this.channelOf(userId)),
    );
  }

  async publishDelivery(
    userId: string,
    event: UserEvent,
    bodyHash: string,
    content?: { marks: readonly SeenMark[] },
  ): Promise<string | undefined> {
    const minId = `${this.options.clock() - this.options.retentionMs}`;
    const mark = deliveryMarkRedisKey(this.options.keyPrefix, { userId }, bodyHash);
    const id = await storeCall(() =>
      this.commands.appendDelivery(
        this.logKey(userId),
        mark,
        this.seenKey(userId),
        minId,
        JSON.stringify(event),
        this.channelOf(userId),
        DEDUPLICATION_WINDOW_MS,
        content ? (event.sync ? '2' : '1') : '0',
        ...(content?.marks ?? []).flatMap((seen) => [seen.key, seen.digest]),
      ),
    );
    // A delivery found done was waited for by its own request; one found unchanged is waited for
    // here too, as its content's event may have been stored an instant ago by another.
    if (id || content) await this.options.waitForReplicas?.(this.logKey(userId));
    return id ?? undefined;
  }

  async publishChange(userId: string, event: UserEvent, marks: readonly SeenMark[]): Promise<string | undefined> {
    const minId = `${this.options.clock() - this.options.retentionMs}`;
    const id = await storeCall(() =>
      this.commands.appendChange(
        this.logKey(userId),
        this.seenKey(userId),
        minId,
        JSON.stringify(event),
        this.channelOf(userId),
        DEDUPLICATION_WINDOW_MS,
        event.sync ? '2' : '1',
        ...marks.flatMap((seen) => [seen.key, seen.digest]),
      ),
    );
    return id ?? undefined;
  }

  async checkCursor(userId: string, cursor: string): Promise<void> {
    const { redis, clock, retentionMs } = this.options;
    if (!CURSOR_FORM.test(cursor)) throw new CursorExpiredError();
    if (compareCursors(cursor, `${clock() - retentionMs}-0`) < 0) throw new CursorExpiredError();
    const key = this.logKey(userId);
    const last = (await storeCall(() => redis.xrevrange(key, '+', '-', 'COUNT', 1)))[0]?.[0];
    if (last !== undefined && compareCursors(cursor, last) > 0) throw new CursorExpiredError();
    if (last === undefined && compareCursors(cursor, `${clock()}-0`) > 0) throw new CursorExpiredError();
    // Entries trimmed after the cursor would be skipped: refuse rather than resume with a gap.
    const info =
      last === undefined ? undefined : ((await storeCall(() => redis.call('XINFO', 'STREAM', key))) as unknown[]);
    const index = info?.indexOf('max-deleted-entry-id') ?? -1;
    const deleted = index >= 0 ? String(info![index + 1]) : '0-0';
    if (compareCursors(cursor, deleted) < 0) throw new CursorExpiredError();
  }

  subscribe(userId: string, subscribeOptions: SubscribeOptions = {}): EventSubscription {
    const channel = this.channelOf(userId);
    const queue = replayingSubscription({
      maxQueued: this.options.maxQueued ?? 100,
      follow: (deliver) => {
        const { entry, ready } = this.reader.follow(channel, this.logKey(userId), deliver);
        return {
          ready,
          stop: () => {
            this.open.delete(queue);
            this.reader.unfollow(channel, entry, deliver);
          },
        };
      },
      after: subscribeOptions.after,
      checkCursor: (cursor) => this.checkCursor(userId, cursor),
      readAfter: async (cursor, limit) =>
        (await storeCall(() => this.options.redis.xrange(this.logKey(userId), `(${cursor}`, '+', 'COUNT', limit))).map(
          ([id, fields]) => decodeEntry(id, fields),
        ),
    });
    this.open.add(queue);
    return queue;
  }

  async deleteUser(userId: string): Promise<void> {
    await storeCall(() => this.commands.forget(this.logKey(userId), this.options.retentionMs));
    await storeCall(() => this.options.redis.del(this.seenKey(userId)));
  }

  async close(): Promise<void> {
    for (const queue of this.open) queue.end();
    this.open.clear();
    await this.reader.close();
  }

  private logKey(userId: string): string {
    return userEventsKey(this.options.keyPrefix, userId);
  }

  /** What the user's subscribers were last given of each object (digests only), beside their log. */
  private seenKey(userId: string): string {
    return `${userKeys(this.options.keyPrefix, userId)}:seen`;
  }

  private channelOf(userId: string): string {
    return `${userKeys(this.options.keyPrefix, userId)}:events:live`;
  }
}
