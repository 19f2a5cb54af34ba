import type { Redis } from 'ioredis';
import { userTag } from '../auth/session-store.js';
import type { Clock } from '../lib/clock.js';
import { randomToken } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { CursorExpiredError, type LoggedEvent, type PubSub, type UserEvent } from '../pubsub/pubsub.js';
import { replayingSubscription } from '../pubsub/replaying-subscription.js';
import { compareCursors, CURSOR_FORM } from '../pubsub/subscriber-queue.js';
import { storeCall } from './redis-client.js';

export interface RedisPubSubOptions {
  /** Commands (XADD, XRANGE, XINFO). */
  redis: Redis;
  /** A connection of its own for the blocking reader. */
  reader: Redis;
  keyPrefix: string;
  clock: Clock;
  retentionMs: number;
  logger: Logger;
  /** Per subscriber. @default 100 */
  maxQueued?: number;
}

type StreamEntries = Array<[string, Array<[string, string[]]>]>;

/**
 * The event log on Redis: one Stream per user (under the user's hash tag), trimmed by MINID to the
 * retention. `publish` resolves once XADD has stored the event. Each instance runs one blocking
 * XREAD over the streams of the users that have subscribers there, plus a wake stream of its own
 * that it appends to when that set changes, so there is no polling and no read per socket.
 */
export function createRedisPubSub(options: RedisPubSubOptions): PubSub {
  const { redis, reader, keyPrefix } = options;
  const streamKey = (userId: string) => `${keyPrefix}{u:${userTag(userId)}}:events`;
  const wakeKey = `${keyPrefix}wake:${randomToken(12)}`;
  /** Users followed here: where the reader is in their stream, and who to hand events to. */
  const followed = new Map<string, { key: string; lastId: string; deliver: Set<(event: LoggedEvent) => void> }>();
  const open = new Set<{ end(): void }>();
  let stopped = false;

  const decode = (id: string, fields: string[]): LoggedEvent => ({ ...(JSON.parse(fields[1]!) as UserEvent), cursor: id });

  async function wake(): Promise<void> {
    await redis.xadd(wakeKey, 'MAXLEN', '~', '10', '*', 'w', '1').catch(() => undefined);
  }

  async function readLoop(): Promise<void> {
    let wakeId = '$';
    while (!stopped) {
      const users = new Map([...followed.values()].map((entry) => [entry.key, entry]));
      try {
        const result = (await reader.xread('BLOCK', 0, 'STREAMS', wakeKey, ...users.keys(), wakeId, ...[...users.values()].map((entry) => entry.lastId))) as StreamEntries | null;
        for (const [key, entries] of result ?? []) {
          if (key === wakeKey) {
            wakeId = entries.at(-1)?.[0] ?? wakeId;
            continue;
          }
          const user = users.get(key);
          if (!user) continue;
          for (const [id, fields] of entries) {
            user.lastId = id;
            const event = decode(id, fields);
            for (const deliver of user.deliver) deliver(event);
          }
        }
        if (wakeId === '$') wakeId = (await redis.xrevrange(wakeKey, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
      } catch (error) {
        if (stopped) return;
        // Redis away: sockets stay open; reading resumes from the same positions when it is back.
        options.logger.warn({ err: { message: (error as Error).message } }, 'event reader: redis unavailable, retrying');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  let loop: Promise<void> | undefined;

  async function follow(userId: string, deliver: (event: LoggedEvent) => void): Promise<void> {
    let entry = followed.get(userId);
    if (!entry) {
      const key = streamKey(userId);
      // Live delivery starts at the stream's current end; anything after it reaches this reader.
      const last = (await storeCall(() => redis.xrevrange(key, '+', '-', 'COUNT', 1)))[0]?.[0] ?? '0-0';
      entry = followed.get(userId) ?? { key, lastId: last, deliver: new Set() };
      followed.set(userId, entry);
      await wake();
    }
    entry.deliver.add(deliver);
    loop ??= readLoop();
  }

  const pubsub: PubSub = {
    async publish(userId, event) {
      const minId = `${options.clock() - options.retentionMs}`;
      return (await storeCall(() => redis.xadd(streamKey(userId), 'MINID', '~', minId, '*', 'e', JSON.stringify(event))))!;
    },

    async checkCursor(userId, cursor) {
      if (!CURSOR_FORM.test(cursor)) throw new CursorExpiredError();
      if (compareCursors(cursor, `${options.clock() - options.retentionMs}-0`) < 0) throw new CursorExpiredError();
      const key = streamKey(userId);
      const last = (await storeCall(() => redis.xrevrange(key, '+', '-', 'COUNT', 1)))[0]?.[0];
      if (last !== undefined && compareCursors(cursor, last) > 0) throw new CursorExpiredError();
      if (last === undefined && compareCursors(cursor, `${options.clock()}-0`) > 0) throw new CursorExpiredError();
      // Entries trimmed after the cursor would be skipped: refuse rather than resume with a gap.
      const info = last === undefined ? undefined : ((await storeCall(() => redis.call('XINFO', 'STREAM', key))) as unknown[]);
      const index = info?.indexOf('max-deleted-entry-id') ?? -1;
      const deleted = index >= 0 ? String(info![index + 1]) : '0-0';
      if (compareCursors(cursor, deleted) < 0) throw new CursorExpiredError();
    },

    subscribe(userId, subscribeOptions = {}) {
      const queue = replayingSubscription({
        maxQueued: options.maxQueued ?? 100,
        follow(deliver) {
          const ready = follow(userId, deliver);
          return {
            ready,
            stop() {
              open.delete(queue);
              const entry = followed.get(userId);
              entry?.deliver.delete(deliver);
              if (entry && entry.deliver.size === 0) {
                followed.delete(userId);
                void wake();
              }
            },
          };
        },
        after: subscribeOptions.after,
        checkCursor: (cursor) => pubsub.checkCursor(userId, cursor),
        readAfter: async (cursor) => (await storeCall(() => redis.xrange(streamKey(userId), `(${cursor}`, '+'))).map(([id, fields]) => decode(id, fields)),
      });
      open.add(queue);
      return queue;
    },

    async deleteUser(userId) {
      await storeCall(() => redis.del(streamKey(userId)));
    },

    async close() {
      stopped = true;
      for (const queue of open) queue.end();
      open.clear();
      followed.clear();
      reader.disconnect();
      await redis.del(wakeKey).catch(() => undefined);
    },
  };
  return pubsub;
}
