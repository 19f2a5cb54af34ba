import { userTag } from '../auth/session-store.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { CursorExpiredError, type LoggedEvent, type PubSub, type UserEvent } from '../pubsub/pubsub.js';
import { FanOut } from '../pubsub/fan-out.js';
import { replayingSubscription } from '../pubsub/replaying-subscription.js';
import { compareCursors, CURSOR_FORM } from '../pubsub/subscriber-queue.js';
import { DEDUPLICATION_WINDOW_MS } from '../pubsub/delivery-marks.js';
import { storeCall, type RedisClient } from './redis-client.js';
import type { ReplicaWait } from './redis-replica-wait.js';
import { deliveryMarkRedisKey, DONE_MARK } from './redis-delivery-ledger.js';

export interface RedisPubSubOptions {
  /** Commands (the append script, XRANGE, XINFO). */
  redis: RedisClient;
  /** The instance's pub/sub connection (subscribe mode), shared with the session-endings channel. */
  subscriber: RedisClient;
  keyPrefix: string;
  clock: Clock;
  retentionMs: number;
  logger: Logger;
  /** Per subscriber. @default 100 */
  maxQueued?: number;
  /** How often each followed stream is checked for events whose announcement was lost. @default 30000 */
  reconcileIntervalMs?: number;
  /** Resolves once enough replicas hold a delivery's append (REDIS_WAIT_REPLICAS). @default no wait */
  waitForReplicas?: ReplicaWait;
}

/**
 * Appends an event and announces it, atomically: XADD to the user's stream (trimmed by MINID) and
 * PUBLISH of "<id>\n<previous id>\n<event>" on the user's channel. The previous id lets a reader
 * see that it missed an announcement (pub/sub drops messages while a connection is down) and
 * read the gap from the stream. One key per script, so it runs on a Cluster too.
 */
const APPEND = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local previous = '0-0'
if last[1] then previous = last[1][1] end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', ARGV[1], '*', 'e', ARGV[2])
redis.call('PERSIST', KEYS[1])
redis.call('PUBLISH', ARGV[3], id .. '\\n' .. previous .. '\\n' .. ARGV[2])
`;
const APPEND_SCRIPT = `${APPEND}
return id
`;

/**
 * The append for a webhook delivery: KEYS[2] is its mark (under the same user tag, so one slot).
 * A delivery already done appends nothing (a late-running write after a retry stored it); else the
 * append and the done mark, for the deduplication window, are one atomic step.
 */
const APPEND_DELIVERY_SCRIPT = `
if redis.call('GET', KEYS[2]) == '${DONE_MARK}' then return false end
${APPEND}
redis.call('SET', KEYS[2], '${DONE_MARK}', 'PX', ARGV[4])
return id
`;

/**
 * Forgets a user's events but keeps the emptied stream (with the last id it generated) for the
 * retention period: a stream recreated by DEL would restart its ids and could hand out a cursor
 * again, within the same millisecond, so a client resuming from an old cursor would skip the new
 * events. The append script clears the expiry when events arrive again.
 */
const FORGET_SCRIPT = `
redis.call('XTRIM', KEYS[1], 'MAXLEN', 0)
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`;

interface Followed {
  key: string;
  /** The last event handed on; announcements at or before it are skipped. */
  lastId: string;
  deliver: FanOut;
  /** Announcements and catch-up reads for one user run in order, one at a time. */
  chain: Promise<void>;
  /** Subscribed and the start position read: what every subscriber joining waits for. */
  started: Promise<void>;
}

type AppendCommand = (key: string, minId: string, event: string, channel: string) => Promise<string>;
type AppendDeliveryCommand = (
  key: string,
  mark: string,
  minId: string,
  event: string,
  channel: string,
  windowMs: number,
) => Promise<string | null>;

/**
 * The event log on Redis: one Stream per user (under the user's hash tag), trimmed by MINID to the
 * retention, and one pub/sub channel per user that announces each appended event with its
 * payload. An instance subscribes to the channels of the users that have subscribers there (one
 * SUBSCRIBE per user, not per socket) and hands each event on with no further read. A gap (an
 * announcement whose previous id is not the last one seen, as after a reconnection) is filled
 * from the stream with XRANGE, so nothing is skipped and the order holds. Every command names one
 * key, so the same code runs on a single server, behind Sentinel, and on a Cluster.
 */
export function createRedisPubSub(options: RedisPubSubOptions): PubSub {
  const { redis, subscriber, keyPrefix } = options;
  const tagged = (userId: string) => `${keyPrefix}{u:${userTag(userId)}}`;
  const streamKey = (userId: string) => `${tagged(userId)}:events`;
  const channelOf = (userId: string) => `${tagged(userId)}:events:live`;
  redis.defineCommand('ofgAppendEvent', { numberOfKeys: 1, lua: APPEND_SCRIPT });
  const append = (redis as unknown as { ofgAppendEvent: AppendCommand }).ofgAppendEvent.bind(redis);
  redis.defineCommand('ofgAppendDelivery', { numberOfKeys: 2, lua: APPEND_DELIVERY_SCRIPT });
  const appendDelivery = (redis as unknown as { ofgAppendDelivery: AppendDeliveryCommand }).ofgAppendDelivery.bind(
    redis,
  );
  redis.defineCommand('ofgForgetEvents', { numberOfKeys: 1, lua: FORGET_SCRIPT });
  const forget = (
    redis as unknown as { ofgForgetEvents: (key: string, ttlMs: number) => Promise<number> }
  ).ofgForgetEvents.bind(redis);

  /** By channel: who follows which user here. */
  const followed = new Map<string, Followed>();
  const open = new Set<{ end(): void }>();

  const decode = (id: string, fields: string[]): LoggedEvent => ({
    ...(JSON.parse(fields[1]!) as UserEvent),
    cursor: id,
  });

  function handOn(entry: Followed, event: LoggedEvent): void {
    entry.lastId = event.cursor;
    entry.deliver.publish(event);
  }

  /** Reads what the stream holds after the last event handed on (up to `until`, if given). */
  async function catchUp(entry: Followed, until = '+'): Promise<void> {
    const entries = await storeCall(() => redis.xrange(entry.key, `(${entry.lastId}`, until));
    for (const [id, fields] of entries) handOn(entry, decode(id, fields));
  }

  function onAnnouncement(channel: string, message: string): void {
    const entry = followed.get(channel);
    if (!entry) return;
    const [id, previous] = message.split('\n', 2) as [string, string];
    const payload = message.slice(id.length + previous.length + 2);
    entry.chain = entry.chain.then(async () => {
      if (compareCursors(id, entry.lastId) <= 0) return;
      if (previous === entry.lastId) handOn(entry, { ...(JSON.parse(payload) as UserEvent), cursor: id });
      else await catchUp(entry, id);
    });
    entry.chain = entry.chain.catch((error: unknown) => {
      // The gap stays open; the next announcement (or reconnection) fills it.
      options.logger.warn(
        { err: { message: (error as Error).message } },
        'event reader: could not read missed events; will retry',
      );
    });
  }
  subscriber.on('message', onAnnouncement);

  function catchUpAll(why: string): void {
    for (const entry of followed.values()) {
      entry.chain = entry.chain
        .then(() => catchUp(entry))
        .catch((error: unknown) =>
          options.logger.warn(
            { err: { message: (error as Error).message }, why },
            'event reader: catch-up failed; will retry',
          ),
        );
    }
  }

  // Announcements sent while the connection was down are lost: read what each stream gained. The
  // PING waits until the re-subscriptions ioredis sent on reconnecting are in effect.
  let connected = true;
  const onClose = () => (connected = false);
  const onReady = () => {
    if (connected) return;
    connected = true;
    void (subscriber.ping() as Promise<unknown>).catch(() => undefined).then(() => catchUpAll('reconnected'));
  };
  subscriber.on('close', onClose);
  subscriber.on('ready', onReady);
  // A safety net for losses no event signals (a Cluster moves its subscriber connection to another
  // node on its own): one XRANGE per followed user, not per socket, per interval.
  const reconciler = setInterval(() => catchUpAll('periodic'), options.reconcileIntervalMs ?? 30_000);
  reconciler.unref();

  /** Starts following the user for `deliver`: the entry joined (for `unfollow`), and when it started. */
  function follow(userId: string, deliver: (event: LoggedEvent) => void): { entry: Followed; ready: Promise<void> } {
    const channel = channelOf(userId);
    let entry = followed.get(channel);
    if (!entry) {
      const created: Followed = {
        key: streamKey(userId),
        lastId: '0-0',
        deliver: new FanOut(),
        chain: Promise.resolve(),
        started: Promise.resolve(),
      };
      // Subscribed before the stream's end is read: an event appended in between is announced,
      // and its announcement waits in the chain until the start position is known.
      created.started = created.chain = (async () => {
        await storeCall(() => subscriber.subscribe(channel));
        created.lastId = (await storeCall(() => redis.xrevrange(created.key, '+', '-', 'COUNT', 1)))[0]?.[0] ?? '0-0';
      })();
      // A failed start leaves no start position: the entry is dropped at once, with every
      // subscriber waiting on it, so no later subscriber joins it and reads the stream from 0.
      created.started.catch(() => {
        if (followed.get(channel) === created) followed.delete(channel);
      });
      followed.set(channel, created);
      entry = created;
    }
    const joined = entry;
    joined.deliver.add(deliver);
    const ready = joined.started.catch((error: unknown) => {
      unfollow(channel, joined, deliver);
      throw error;
    });
    return { entry: joined, ready };
  }

  /** Stops `deliver`, on the entry it joined (a newer entry of the same user is not touched). */
  function unfollow(channel: string, entry: Followed, deliver: (event: LoggedEvent) => void): void {
    entry.deliver.delete(deliver);
    if (entry.deliver.size > 0 || followed.get(channel) !== entry) return;
    followed.delete(channel);
    subscriber.unsubscribe(channel).catch(() => undefined);
  }

  const pubsub: PubSub = {
    async publish(userId, event) {
      const minId = `${options.clock() - options.retentionMs}`;
      return storeCall(() => append(streamKey(userId), minId, JSON.stringify(event), channelOf(userId)));
    },

    async publishDelivery(userId, event, bodyHash) {
      const minId = `${options.clock() - options.retentionMs}`;
      const mark = deliveryMarkRedisKey(keyPrefix, { userId }, bodyHash);
      const id = await storeCall(() =>
        appendDelivery(
          streamKey(userId),
          mark,
          minId,
          JSON.stringify(event),
          channelOf(userId),
          DEDUPLICATION_WINDOW_MS,
        ),
      );
      // Only the request that stored it waits: a delivery found done was waited for by its own.
      if (id) await options.waitForReplicas?.(streamKey(userId));
      return id ?? undefined;
    },

    async checkCursor(userId, cursor) {
      if (!CURSOR_FORM.test(cursor)) throw new CursorExpiredError();
      if (compareCursors(cursor, `${options.clock() - options.retentionMs}-0`) < 0) throw new CursorExpiredError();
      const key = streamKey(userId);
      const last = (await storeCall(() => redis.xrevrange(key, '+', '-', 'COUNT', 1)))[0]?.[0];
      if (last !== undefined && compareCursors(cursor, last) > 0) throw new CursorExpiredError();
      if (last === undefined && compareCursors(cursor, `${options.clock()}-0`) > 0) throw new CursorExpiredError();
      // Entries trimmed after the cursor would be skipped: refuse rather than resume with a gap.
      const info =
        last === undefined ? undefined : ((await storeCall(() => redis.call('XINFO', 'STREAM', key))) as unknown[]);
      const index = info?.indexOf('max-deleted-entry-id') ?? -1;
      const deleted = index >= 0 ? String(info![index + 1]) : '0-0';
      if (compareCursors(cursor, deleted) < 0) throw new CursorExpiredError();
    },

    subscribe(userId, subscribeOptions = {}) {
      const queue = replayingSubscription({
        maxQueued: options.maxQueued ?? 100,
        follow(deliver) {
          const { entry, ready } = follow(userId, deliver);
          return {
            ready,
            stop() {
              open.delete(queue);
              unfollow(channelOf(userId), entry, deliver);
            },
          };
        },
        after: subscribeOptions.after,
        checkCursor: (cursor) => pubsub.checkCursor(userId, cursor),
        readAfter: async (cursor, limit) =>
          (await storeCall(() => redis.xrange(streamKey(userId), `(${cursor}`, '+', 'COUNT', limit))).map(
            ([id, fields]) => decode(id, fields),
          ),
      });
      open.add(queue);
      return queue;
    },

    async deleteUser(userId) {
      await storeCall(() => forget(streamKey(userId), options.retentionMs));
    },

    async close() {
      clearInterval(reconciler);
      for (const queue of open) queue.end();
      open.clear();
      const channels = [...followed.keys()];
      followed.clear();
      subscriber.off('message', onAnnouncement);
      subscriber.off('close', onClose);
      subscriber.off('ready', onReady);
      if (channels.length > 0) await subscriber.unsubscribe(...channels).catch(() => undefined);
    },
  };
  return pubsub;
}
