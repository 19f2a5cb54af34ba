import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { LoggedEvent } from '../../src/event-log/event-log.js';
import { createRedisEventLog } from '../../src/event-log/redis-event-log.js';
import { compareCursors } from '../../src/event-log/subscription-queue.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { createRedisListener } from '../../src/redis/redis-listener.js';
import { track } from '../support/leftovers.js';
import { SHARED_REDIS, testPrefix } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });

async function redisEventLog(keyPrefix: string) {
  const redis = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'test' });
  const listener = createRedisListener({
    connection: SHARED_REDIS,
    commandTimeoutMs: 1_000,
    logger,
    role: 'test-listener',
  });
  await Promise.all([redis.connect(), listener.connect()]);
  const eventLog = createRedisEventLog({ redis, listener, keyPrefix, clock: Date.now, retentionMs: 3_600_000, logger });
  track(async () => {
    await eventLog.close();
    redis.disconnect();
    listener.disconnect();
  });
  return { eventLog, listener: listener as Redis };
}

const event = (n: number) => ({
  type: 'PAYMENT',
  code: 'UPDATE',
  payload: { item_id: `payment_${n}` },
  receivedAt: new Date().toISOString(),
});

/** Reads until the event with cursor `until` (or the first that `until` accepts) arrives. */
async function readUntil(
  iterator: AsyncIterableIterator<LoggedEvent>,
  until: string | ((logged: LoggedEvent) => boolean),
): Promise<LoggedEvent[]> {
  const last = typeof until === 'string' ? (logged: LoggedEvent) => logged.cursor === until : until;
  const out: LoggedEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) return out;
    out.push(next.value);
    if (last(next.value)) return out;
  }
}

function expectIncreasing(events: LoggedEvent[]): void {
  const backwards = events.filter((logged, n) => n > 0 && compareCursors(logged.cursor, events[n - 1]!.cursor) <= 0);
  expect(backwards.map((logged) => logged.cursor)).toEqual([]);
}

describe('the Redis event reader across reconnections', () => {
  it('hands a live subscriber every event once, in increasing cursor order, while its connection is cut five times during appends', async () => {
    const keyPrefix = testPrefix();
    const reader = await redisEventLog(keyPrefix);
    const writer = await redisEventLog(keyPrefix);
    const live = reader.eventLog.subscribe('user_cut');
    await live.started;
    const first = await writer.eventLog.publish('user_cut', event(0));
    expect((await readUntil(live, first)).at(-1)?.cursor).toBe(first);
    // Read all along, as a live client does; each round waits for its last event to arrive.
    const received: LoggedEvent[] = [];
    let arrived: (() => void) | undefined;
    const reading = (async () => {
      for await (const logged of live) {
        received.push(logged);
        arrived?.();
        if (logged.payload.item_id === 'payment_9999') return;
      }
    })();
    const arrival = (cursor: string) =>
      new Promise<void>((resolve) => {
        arrived = () => received.some((logged) => logged.cursor === cursor) && resolve();
        arrived();
      });
    const cursors: string[] = [];
    for (let round = 1; round <= 5; round += 1) {
      const reconnected = once(reader.listener, 'ready');
      reader.listener.stream.destroy();
      const batch = await Promise.all(
        Array.from({ length: 40 }, (_, n) => writer.eventLog.publish('user_cut', event(round * 100 + n))),
      );
      cursors.push(...batch.sort(compareCursors));
      await reconnected;
      // Delivered once the reader caught up on what the cut hid (no further event needed).
      await arrival(cursors.at(-1)!);
    }
    cursors.push(await writer.eventLog.publish('user_cut', event(9_999)));
    await reading;
    expectIncreasing(received);
    expect(received.map((logged) => logged.cursor)).toEqual(cursors);
    await live.return!();
  });

  it('gives a subscriber resuming after its last cursor nothing at or before it, while the reader catches up', async () => {
    const keyPrefix = testPrefix();
    const reader = await redisEventLog(keyPrefix);
    const writer = await redisEventLog(keyPrefix);
    // Another subscriber keeps the user followed, so the reader's catch-up after the cut is shared.
    const other = reader.eventLog.subscribe('user_resume');
    await other.started;
    const reconnected = once(reader.listener, 'ready');
    reader.listener.stream.destroy();
    const missed = [];
    for (let n = 0; n < 30; n += 1) missed.push(await writer.eventLog.publish('user_resume', event(n)));
    // The client got everything through another instance and resumes here after the last one,
    // while this instance has yet to catch up on what was appended during the cut.
    const resumed = reader.eventLog.subscribe('user_resume', { after: missed.at(-1) });
    await reconnected;
    await resumed.started;
    const next = await writer.eventLog.publish('user_resume', event(30));
    const received = await readUntil(resumed, next);
    expect(received.map((logged) => logged.cursor)).toEqual([next]);
    await resumed.return!();
    await other.return!();
  });
});
