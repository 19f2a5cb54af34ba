import type { Logger } from '@open-finance-gateway/common/logger';
import { storeCall, type RedisClient } from '../redis/redis-client.js';
import type { RedisListener } from '../redis/redis-listener.js';
import type { LoggedEvent, UserEvent } from './event-log.js';
import { FanOut } from './fan-out.js';
import { compareCursors } from './subscription-queue.js';

export interface RedisEventReaderOptions {
  /** Commands (XRANGE, XREVRANGE). */
  redis: RedisClient;
  /** The instance's Redis listener (SUBSCRIBE), shared with the session-endings channel. */
  listener: RedisListener;
  logger: Logger;
  /** How often each followed user's log is checked for events whose announcement was lost. @default 30000 */
  reconcileIntervalMs?: number;
}

/** One user followed on this instance: their log (a Redis Stream), and who here receives its events. */
export interface Followed {
  key: string;
  /** The last event handed on; announcements at or before it are skipped. */
  lastId: string;
  deliver: FanOut;
  /** Announcements and catch-up reads for one user run in order, one at a time. */
  chain: Promise<void>;
  /** Subscribed and the start position read: what every subscription joining waits for. */
  started: Promise<void>;
}

/** A Redis Stream entry (one field, `e`, the event's JSON) as the event it holds. */
export function decodeEntry(id: string, fields: string[]): LoggedEvent {
  return { ...(JSON.parse(fields[1]!) as UserEvent), cursor: id };
}

function handOn(entry: Followed, event: LoggedEvent): void {
  entry.lastId = event.cursor;
  entry.deliver.publish(event);
}

/** A failed catch-up is tried again after this, doubled each time up to `RETRY_MAX_MS`. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * The live side of the Redis event log on one instance: one SUBSCRIBE per followed user (not per
 * socket), each announced event handed on with no further read. A gap (an announcement whose
 * previous id is not the last one seen) is filled from the log with XRANGE, so nothing is
 * skipped and the order holds. The reader owns its subscriptions: whenever the listener
 * is ready again (reconnected, or on a Cluster moved to another node) it subscribes to every
 * followed channel and reads what each log gained meanwhile.
 */
export class RedisEventReader {
  /** By channel: who follows which user here. */
  private readonly followed = new Map<string, Followed>();
  private readonly reconciler: NodeJS.Timeout;
  private retry: NodeJS.Timeout | undefined;
  private retryDelayMs = RETRY_FIRST_MS;
  private closed = false;

  constructor(private readonly options: RedisEventReaderOptions) {
    options.listener.on('message', this.onAnnouncement);
    options.listener.on('ready', this.onReady);
    // A safety net for losses no event signals (a node that stalls without closing the connection):
    // one SUBSCRIBE, and one XRANGE per followed user (not per socket), per interval.
    this.reconciler = setInterval(() => this.recover('periodic'), options.reconcileIntervalMs ?? 30_000);
    this.reconciler.unref();
  }

  /** Starts following the log `key` (announced on `channel`) for `deliver`: the entry joined, and when it started. */
  follow(
    channel: string,
    key: string,
    deliver: (event: LoggedEvent) => void,
  ): { entry: Followed; ready: Promise<void> } {
    const joined = this.followed.get(channel) ?? this.start(channel, key);
    joined.deliver.add(deliver);
    const ready = joined.started.catch((error: unknown) => {
      this.unfollow(channel, joined, deliver);
      throw error;
    });
    return { entry: joined, ready };
  }

  /** Stops `deliver`, on the entry it joined (a newer entry of the same user is not touched). */
  unfollow(channel: string, entry: Followed, deliver: (event: LoggedEvent) => void): void {
    entry.deliver.delete(deliver);
    if (entry.deliver.size > 0 || this.followed.get(channel) !== entry) return;
    this.followed.delete(channel);
    this.options.listener.unsubscribe(channel).catch(() => undefined);
  }

  async close(): Promise<void> {
    const { listener } = this.options;
    this.closed = true;
    clearInterval(this.reconciler);
    clearTimeout(this.retry);
    const channels = [...this.followed.keys()];
    this.followed.clear();
    listener.off('message', this.onAnnouncement);
    listener.off('ready', this.onReady);
    if (channels.length > 0) await listener.unsubscribe(...channels).catch(() => undefined);
  }

  /** A new entry for the channel, registered, its start under way. */
  private start(channel: string, key: string): Followed {
    const { redis, listener } = this.options;
    const created: Followed = {
      key,
      lastId: '0-0',
      deliver: new FanOut(),
      chain: Promise.resolve(),
      started: Promise.resolve(),
    };
    // Subscribed before the log's end is read: an event appended in between is announced,
    // and its announcement waits in the chain until the start position is known.
    created.started = created.chain = (async () => {
      await storeCall(() => listener.subscribe(channel));
      created.lastId = (await storeCall(() => redis.xrevrange(created.key, '+', '-', 'COUNT', 1)))[0]?.[0] ?? '0-0';
    })();
    // A failed start leaves no start position: the entry is dropped at once, with every
    // subscriber waiting on it, so no later subscriber joins it and reads the log from 0.
    created.started.catch(() => {
      if (this.followed.get(channel) === created) this.followed.delete(channel);
    });
    this.followed.set(channel, created);
    return created;
  }

  /** Reads what the log holds after the last event handed on (up to `until`, if given). */
  private async catchUp(entry: Followed, until = '+'): Promise<void> {
    const entries = await storeCall(() => this.options.redis.xrange(entry.key, `(${entry.lastId}`, until));
    for (const [id, fields] of entries) handOn(entry, decodeEntry(id, fields));
  }

  private readonly onAnnouncement = (channel: string, message: string): void => {
    const entry = this.followed.get(channel);
    if (!entry) return;
    const [id, previous] = message.split('\n', 2) as [string, string];
    const payload = message.slice(id.length + previous.length + 2);
    entry.chain = entry.chain
      .then(async () => {
        if (compareCursors(id, entry.lastId) <= 0) return;
        if (previous === entry.lastId) handOn(entry, { ...(JSON.parse(payload) as UserEvent), cursor: id });
        else await this.catchUp(entry, id);
      })
      .catch((error: unknown) => this.failed(error, 'gap'));
  };

  private readonly onReady = (): void => this.recover('reconnected');

  /**
   * Subscribes to every followed channel again, then reads what each log gained after the last
   * event handed on. Once SUBSCRIBE has answered, every later append is announced here, and what
   * was appended before is in the read; the read joins the user's chain, and an announcement at or
   * before the last id handed on is skipped, so nothing is handed on twice. A failed SUBSCRIBE (a
   * node that stalls) does not hold back the read, and both are tried again.
   */
  private recover(why: string): void {
    const channels = [...this.followed.keys()];
    if (channels.length === 0) return;
    const subscribed = storeCall(() => this.options.listener.subscribe(...channels));
    void subscribed
      .catch(() => undefined)
      .then(() => Promise.all([...this.followed].map(([channel, entry]) => this.catchUpInChain(channel, entry))))
      .then(() => subscribed)
      .then(
        () => {
          this.retryDelayMs = RETRY_FIRST_MS;
        },
        (error: unknown) => this.failed(error, why),
      );
  }

  /** A catch-up in the entry's chain (skipped if its start failed); the chain never stays rejected. */
  private catchUpInChain(channel: string, entry: Followed): Promise<void> {
    const read = entry.chain
      .catch(() => undefined)
      .then(() => (this.followed.get(channel) === entry ? this.catchUp(entry) : undefined));
    entry.chain = read.catch(() => undefined);
    return read;
  }

  /**
   * A read or re-subscription failed (as while a failover is under way): the recovery runs again
   * soon, rather than at the next announcement (which may not come) or the periodic reconcile.
   */
  private failed(error: unknown, why: string): void {
    this.options.logger.warn(
      { err: { message: (error as Error).message }, why },
      'event reader: could not read missed events; will retry',
    );
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      // While the connection is down, its 'ready' starts the recovery.
      if (this.options.listener.status === 'ready') this.recover('retry');
    }, this.retryDelayMs);
    this.retry.unref();
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
  }
}
