import type { Logger } from '@open-finance-gateway/common/logger';
import type { LoggedEvent, UserEvent } from '../pubsub/pubsub.js';
import { FanOut } from '../pubsub/fan-out.js';
import { compareCursors } from '../pubsub/subscriber-queue.js';
import { storeCall, type RedisClient } from './redis-client.js';

export interface RedisEventReaderOptions {
  /** Commands (XRANGE, XREVRANGE). */
  redis: RedisClient;
  /** The instance's pub/sub connection (subscribe mode), shared with the session-endings channel. */
  subscriber: RedisClient;
  logger: Logger;
  /** How often each followed stream is checked for events whose announcement was lost. @default 30000 */
  reconcileIntervalMs?: number;
}

/** One user followed on this instance: their stream, and who here receives its events. */
export interface Followed {
  key: string;
  /** The last event handed on; announcements at or before it are skipped. */
  lastId: string;
  deliver: FanOut;
  /** Announcements and catch-up reads for one user run in order, one at a time. */
  chain: Promise<void>;
  /** Subscribed and the start position read: what every subscriber joining waits for. */
  started: Promise<void>;
}

/** A stream entry (one field, `e`, the event's JSON) as the event it holds. */
export function decodeEntry(id: string, fields: string[]): LoggedEvent {
  return { ...(JSON.parse(fields[1]!) as UserEvent), cursor: id };
}

function handOn(entry: Followed, event: LoggedEvent): void {
  entry.lastId = event.cursor;
  entry.deliver.publish(event);
}

/**
 * The live side of the Redis event log on one instance: one SUBSCRIBE per followed user (not per
 * socket), each announced event handed on with no further read. A gap (an announcement whose
 * previous id is not the last one seen, as after a reconnection) is filled from the stream with
 * XRANGE, so nothing is skipped and the order holds.
 */
export class RedisEventReader {
  /** By channel: who follows which user here. */
  private readonly followed = new Map<string, Followed>();
  private connected = true;
  private readonly reconciler: NodeJS.Timeout;

  constructor(private readonly options: RedisEventReaderOptions) {
    options.subscriber.on('message', this.onAnnouncement);
    options.subscriber.on('close', this.onClose);
    options.subscriber.on('ready', this.onReady);
    // A safety net for losses no event signals (a Cluster moves its subscriber connection to another
    // node on its own): one XRANGE per followed user, not per socket, per interval.
    this.reconciler = setInterval(() => this.catchUpAll('periodic'), options.reconcileIntervalMs ?? 30_000);
    this.reconciler.unref();
  }

  /** Starts following the stream `key` (announced on `channel`) for `deliver`: the entry joined, and when it started. */
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
    this.options.subscriber.unsubscribe(channel).catch(() => undefined);
  }

  async close(): Promise<void> {
    const { subscriber } = this.options;
    clearInterval(this.reconciler);
    const channels = [...this.followed.keys()];
    this.followed.clear();
    subscriber.off('message', this.onAnnouncement);
    subscriber.off('close', this.onClose);
    subscriber.off('ready', this.onReady);
    if (channels.length > 0) await subscriber.unsubscribe(...channels).catch(() => undefined);
  }

  /** A new entry for the channel, registered, its start under way. */
  private start(channel: string, key: string): Followed {
    const { redis, subscriber } = this.options;
    const created: Followed = {
      key,
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
      if (this.followed.get(channel) === created) this.followed.delete(channel);
    });
    this.followed.set(channel, created);
    return created;
  }

  /** Reads what the stream holds after the last event handed on (up to `until`, if given). */
  private async catchUp(entry: Followed, until = '+'): Promise<void> {
    const entries = await storeCall(() => this.options.redis.xrange(entry.key, `(${entry.lastId}`, until));
    for (const [id, fields] of entries) handOn(entry, decodeEntry(id, fields));
  }

  private readonly onAnnouncement = (channel: string, message: string): void => {
    const entry = this.followed.get(channel);
    if (!entry) return;
    const [id, previous] = message.split('\n', 2) as [string, string];
    const payload = message.slice(id.length + previous.length + 2);
    entry.chain = entry.chain.then(async () => {
      if (compareCursors(id, entry.lastId) <= 0) return;
      if (previous === entry.lastId) handOn(entry, { ...(JSON.parse(payload) as UserEvent), cursor: id });
      else await this.catchUp(entry, id);
    });
    entry.chain = entry.chain.catch(this.onGapReadFailed);
  };

  /** The gap stays open; the next announcement (or reconnection) fills it. */
  private readonly onGapReadFailed = (error: unknown): void => {
    this.options.logger.warn(
      { err: { message: (error as Error).message } },
      'event reader: could not read missed events; will retry',
    );
  };

  private catchUpAll(why: string): void {
    for (const entry of this.followed.values()) {
      entry.chain = entry.chain
        .then(() => this.catchUp(entry))
        .catch((error: unknown) =>
          this.options.logger.warn(
            { err: { message: (error as Error).message }, why },
            'event reader: catch-up failed; will retry',
          ),
        );
    }
  }

  private readonly onClose = (): void => {
    this.connected = false;
  };

  // Announcements sent while the connection was down are lost: read what each stream gained. The
  // PING waits until the re-subscriptions ioredis sent on reconnecting are in effect.
  private readonly onReady = (): void => {
    if (this.connected) return;
    this.connected = true;
    void (this.options.subscriber.ping() as Promise<unknown>)
      .catch(() => undefined)
      .then(() => this.catchUpAll('reconnected'));
  };
}
