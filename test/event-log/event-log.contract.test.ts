import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createMemoryDeliveryMarks } from '../../src/event-log/delivery-marks.js';
import { CursorExpiredError, type EventLog, type LoggedEvent } from '../../src/event-log/event-log.js';
import { createMemoryEventLog } from '../../src/event-log/memory-event-log.js';
import { compareCursors } from '../../src/event-log/subscription-queue.js';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { userTag } from '../../src/redis/redis-keys.js';
import type { DeliveryLedger } from '../../src/webhooks/delivery-ledger.js';
import { createMemoryDeliveryLedger } from '../../src/webhooks/memory-delivery-ledger.js';
import { createRedisDeliveryLedger } from '../../src/webhooks/redis-delivery-ledger.js';
import { track } from '../support/leftovers.js';
import { ownTopologies } from '../support/redis-topologies.js';
import { redisEventLog, SHARED_REDIS, testPrefix } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });
const RETENTION_MS = 3_600_000;
/** The same contract on a Cluster and behind Sentinel: the log's code does not change with the topology. */
const topologies = ownTopologies();

/**
 * Two handles on one log: in memory the same object, on Redis two instances sharing a prefix; and
 * the delivery ledger whose "done" marks the log's delivery appends write.
 */
type Pair = [EventLog, EventLog] & { ledger: DeliveryLedger };

async function redisPair(connection: RedisConnectionSettings): Promise<Pair> {
  const keyPrefix = testPrefix();
  const first = await redisEventLog(connection, keyPrefix, RETENTION_MS);
  const ledger = createRedisDeliveryLedger({ redis: first.redis, keyPrefix, leaseMs: 60_000 });
  return Object.assign(
    [first.eventLog, (await redisEventLog(connection, keyPrefix, RETENTION_MS)).eventLog] as [EventLog, EventLog],
    {
      ledger,
    },
  );
}

async function memoryPair(): Promise<Pair> {
  const marks = createMemoryDeliveryMarks({ clock: Date.now });
  const eventLog = createMemoryEventLog({ logger, clock: Date.now, retentionMs: RETENTION_MS, marks });
  track(() => eventLog.close());
  return Object.assign([eventLog, eventLog] as [EventLog, EventLog], {
    ledger: createMemoryDeliveryLedger({ marks, leaseMs: 60_000 }),
  });
}

const event = (n: number) => ({
  type: 'PAYMENT',
  code: 'UPDATE',
  payload: { item_id: `payment_${n}` },
  receivedAt: new Date().toISOString(),
});
const items = (events: LoggedEvent[]) => events.map((logged) => logged.payload.item_id);

async function take(iterator: AsyncIterableIterator<LoggedEvent>, count: number): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  while (out.length < count) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

/**
 * Waits until a live subscription is certainly following: subscribing takes round trips, and an
 * event published before they finish may precede the subscription. Probes until one arrives,
 * then sends a marker and reads up to it, so what follows starts from a known point.
 */
async function settled(
  publisher: EventLog,
  iterator: AsyncIterableIterator<LoggedEvent>,
  userId: string,
): Promise<string> {
  let next = iterator.next();
  for (;;) {
    await publisher.publish(userId, event(-1));
    const arrived = await Promise.race([
      next.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 100)),
    ]);
    if (arrived) break;
  }
  const marker = await publisher.publish(userId, event(-2));
  for (;;) {
    next = iterator.next();
    const { value } = await next;
    if ((value as LoggedEvent).cursor === marker) return marker;
  }
}

for (const [kind, pair] of [
  ['memory', memoryPair],
  ['redis', () => redisPair(SHARED_REDIS)],
  ['redis cluster', () => redisPair(topologies.cluster!.connection)],
  ['redis sentinel', () => redisPair(topologies.sentinel!.connection)],
] as const) {
  describe(`event log contract: ${kind}`, () => {
    it('stores a delivery once: the append marks its body done, and a late second append stores nothing', async () => {
      const eventLog = await pair();
      const [publisher, subscriber] = eventLog;
      const claim = await eventLog.ledger.claim({ userId: 'user_g' }, 'body-1');
      expect(claim.state).toBe('claimed');
      const cursor = await publisher.publishDelivery('user_g', event(1), 'body-1');
      expect(cursor).toEqual(expect.any(String));
      // Stored and done in one step: the next claim finds it done, and releasing the claim then
      // (its request failed after the append) does not make it claimable again.
      await eventLog.ledger.release({ userId: 'user_g' }, 'body-1', claim.state === 'claimed' ? claim.token : '');
      expect(await eventLog.ledger.claim({ userId: 'user_g' }, 'body-1')).toEqual({ state: 'done' });
      // A write that timed out and ran after the retry's: nothing more is stored.
      expect(await subscriber.publishDelivery('user_g', event(1), 'body-1')).toBeUndefined();
      // Another user's body of the same hash is another delivery.
      expect(await publisher.publishDelivery('user_h', event(1), 'body-1')).toEqual(expect.any(String));
      const marker = await publisher.publish('user_g', event(2));
      const replay = subscriber.subscribe('user_g', { after: `${Number(cursor!.split('-')[0]) - 1}-0` });
      const replayed = await take(replay, 2);
      expect(replayed.map((logged) => logged.cursor)).toEqual([cursor, marker]);
      await replay.return!();
    });

    it('judges a delivery by its content when asked: a body done before is stored again for new content, never twice for the same', async () => {
      const eventLog = await pair();
      const [publisher, subscriber] = eventLog;
      const scope = { userId: 'user_c' };
      const content = (digest: string) => ({ marks: [{ key: 'account-1', digest }] });
      expect((await eventLog.ledger.claim(scope, 'body-c', true)).state).toBe('claimed');
      expect(await publisher.publishDelivery('user_c', event(1), 'body-c', content('v1'))).toEqual(expect.any(String));
      // Done for a claim judged by its body; claimed again for one judged by content.
      expect(await eventLog.ledger.claim(scope, 'body-c')).toEqual({ state: 'done' });
      expect((await eventLog.ledger.claim(scope, 'body-c', true)).state).toBe('claimed');
      // A retry of the same change (the same content): nothing stored, on any instance.
      expect(await subscriber.publishDelivery('user_c', event(1), 'body-c', content('v1'))).toBeUndefined();
      // The same bytes for a new change, and a change back: each stored.
      expect(await publisher.publishDelivery('user_c', event(1), 'body-c', content('v2'))).toEqual(expect.any(String));
      expect(await subscriber.publishDelivery('user_c', event(1), 'body-c', content('v1'))).toEqual(expect.any(String));
      // A reconciliation's finding, judged the same way; one that changed a ledger is stored whatever it names.
      expect(await publisher.publishChange('user_c', event(2), content('v1').marks)).toBeUndefined();
      expect(await publisher.publishChange('user_c', event(2), content('v3').marks)).toEqual(expect.any(String));
      const synced = { ...event(3), sync: { epoch: 'e1', from: 0, to: 1 } };
      expect(await publisher.publishChange('user_c', synced, content('v3').marks)).toEqual(expect.any(String));
      // Deleting the user's events forgets what they were given.
      await publisher.deleteUser('user_c');
      expect(await subscriber.publishChange('user_c', event(4), content('v3').marks)).toEqual(expect.any(String));
    });

    it("delivers a user's events live, in order, across instances, and only that user's", async () => {
      const [publisher, subscriber] = await pair();
      const mine = subscriber.subscribe('user_a');
      const theirs = subscriber.subscribe('user_b');
      await settled(publisher, mine, 'user_a');
      // user_b's own subscription too: on a Cluster each user's channel is subscribed on its own,
      // and under load an event published before that finished was never seen (a 20 s timeout).
      await settled(publisher, theirs, 'user_b');
      await publisher.publish('user_b', event(99));
      const cursors = [];
      for (let n = 0; n < 5; n += 1) cursors.push(await publisher.publish('user_a', event(n)));
      const received = await take(mine, 5);
      expect(items(received)).toEqual(['payment_0', 'payment_1', 'payment_2', 'payment_3', 'payment_4']);
      expect(received.map((logged) => logged.cursor)).toEqual(cursors);
      expect(items(await take(theirs, 1))).toEqual(['payment_99']);
      await mine.return!();
      await theirs.return!();
    });

    it('resumes after a cursor: exactly the missed events in order, then live ones, none twice', async () => {
      const [publisher, subscriber] = await pair();
      const last = await publisher.publish('user_c', event(0));
      for (let n = 1; n <= 3; n += 1) await publisher.publish('user_c', event(n));
      const resumed = subscriber.subscribe('user_c', { after: last });
      // Events published while the replay is being read must not be lost or doubled.
      const racing = Promise.all([4, 5, 6].map((n) => publisher.publish('user_c', event(n))));
      await racing;
      expect(items(await take(resumed, 6))).toEqual([
        'payment_1',
        'payment_2',
        'payment_3',
        'payment_4',
        'payment_5',
        'payment_6',
      ]);
      await publisher.publish('user_c', event(7));
      expect(items(await take(resumed, 1))).toEqual(['payment_7']);
      await resumed.return!();
    });

    it('replays 499 retained events to a reader resuming far behind, in order, at its pace, with no EVENTS_DROPPED', async () => {
      const [publisher, subscriber] = await pair();
      const cursors: string[] = [];
      for (let n = 0; n < 500; n += 1) cursors.push(await publisher.publish('user_far', event(n)));
      const resumed = subscriber.subscribe('user_far', { after: cursors[0] });
      await resumed.started;
      const received = await take(resumed, 499);
      expect(received.map((logged) => logged.cursor)).toEqual(cursors.slice(1));
      // Caught up, it is live.
      const next = await publisher.publish('user_far', event(500));
      expect((await take(resumed, 1)).map((logged) => logged.cursor)).toEqual([next]);
      await resumed.return!();
    });

    it('refuses a malformed, future or trimmed cursor with CursorExpiredError', async () => {
      const [publisher] = await pair();
      const cursor = await publisher.publish('user_d', event(0));
      await expect(publisher.checkCursor('user_d', 'not-a-cursor')).rejects.toBeInstanceOf(CursorExpiredError);
      await expect(publisher.checkCursor('user_d', `${Date.now() + 60_000}-0`)).rejects.toBeInstanceOf(
        CursorExpiredError,
      );
      await expect(publisher.checkCursor('user_d', `${Date.now() - RETENTION_MS - 60_000}-0`)).rejects.toBeInstanceOf(
        CursorExpiredError,
      );
      await expect(publisher.checkCursor('user_d', cursor)).resolves.toBeUndefined();
    });

    it('never hands out a cursor again after deleting a user\u2019s events (an old cursor cannot hide new events)', async () => {
      const [publisher] = await pair();
      // Deleting and appending within one millisecond is where a recreated log would restart its ids.
      for (let round = 0; round < 20; round += 1) {
        const before = await publisher.publish('user_f', event(round));
        await publisher.deleteUser('user_f');
        const after = await publisher.publish('user_f', event(round));
        expect(compareCursors(after, before), `round ${round}: ${after} after ${before}`).toBeGreaterThan(0);
      }
    });

    it('forgets a user\u2019s events when their data is deleted', async () => {
      const [publisher, subscriber] = await pair();
      const first = await publisher.publish('user_e', event(0));
      await publisher.publish('user_e', event(1));
      await publisher.deleteUser('user_e');
      const resumed = subscriber.subscribe('user_e', { after: first });
      await publisher.publish('user_e', event(2));
      expect(items(await take(resumed, 1))).toEqual(['payment_2']);
      await resumed.return!();
    });
  });
}

describe('the in-memory event log', () => {
  it('stays under its total bound, dropping the oldest events of any user, and refuses cursors before them', async () => {
    const eventLog = createMemoryEventLog({ logger, clock: Date.now, retentionMs: RETENTION_MS, maxTotal: 4 });
    track(() => eventLog.close());
    const first = await eventLog.publish('user_a', event(0));
    await eventLog.publish('user_a', event(1));
    await eventLog.publish('user_b', event(2));
    await eventLog.publish('user_b', event(3));
    const fifth = await eventLog.publish('user_b', event(4));
    // user_a's first event was dropped: resuming from before it would skip it; from it is fine.
    const beforeFirst = `${Number(first.split('-')[0]) - 1}-0`;
    await expect(eventLog.checkCursor('user_a', beforeFirst)).rejects.toBeInstanceOf(CursorExpiredError);
    await expect(eventLog.checkCursor('user_a', first)).resolves.toBeUndefined();
    const resumed = eventLog.subscribe('user_b', { after: fifth });
    await eventLog.publish('user_b', event(5));
    expect(items(await take(resumed, 1))).toEqual(['payment_5']);
    await resumed.return!();
  });
});

/** What only the Redis log must handle: announcements lost on the way (pub/sub drops them while a connection is down). */
for (const [kind, connectionOf] of [
  ['redis', () => SHARED_REDIS],
  ['redis cluster', () => topologies.cluster!.connection],
] as const) {
  describe(`the Redis event reader: ${kind}`, () => {
    async function setUp() {
      const connection = connectionOf();
      const keyPrefix = testPrefix();
      const { eventLog, listener } = await redisEventLog(connection, keyPrefix, RETENTION_MS);
      const raw = createRedisClient({ connection, commandTimeoutMs: 1_000, logger, role: 'test-raw' });
      await raw.connect();
      track(() => raw.disconnect());
      /** Appends to the stream without announcing: as if the announcement was lost. */
      const appendSilently = (userId: string, n: number) =>
        raw.xadd(`${keyPrefix}{u:${userTag(userId)}}:events`, '*', 'e', JSON.stringify(event(n))) as Promise<string>;
      return { eventLog, listener, appendSilently };
    }

    it('reads an event whose announcement was lost from the stream, before the next one, in order', async () => {
      const { eventLog, appendSilently } = await setUp();
      const live = eventLog.subscribe('user_gap');
      await settled(eventLog, live, 'user_gap');
      const silent = [await appendSilently('user_gap', 1), await appendSilently('user_gap', 2)];
      const announced = await eventLog.publish('user_gap', event(3));
      const received = await take(live, 3);
      expect(received.map((logged) => logged.cursor)).toEqual([...silent, announced]);
      expect(items(received)).toEqual(['payment_1', 'payment_2', 'payment_3']);
      await live.return!();
    });

    if (kind === 'redis') {
      it('after its connection drops, delivers what was appended meanwhile, in order, with no further event needed', async () => {
        const { eventLog, listener, appendSilently } = await setUp();
        const live = eventLog.subscribe('user_drop');
        await settled(eventLog, live, 'user_drop');
        const connection = listener as Redis;
        const reconnected = once(connection, 'ready');
        connection.stream.destroy();
        const meanwhile = [await appendSilently('user_drop', 1), await appendSilently('user_drop', 2)];
        await reconnected;
        const received = await take(live, 2);
        expect(received.map((logged) => logged.cursor)).toEqual(meanwhile);
        await live.return!();
      });
    }
  });
}
