import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import type { RedisConnectionSettings } from '../../src/config/redis-settings.js';
import { createRedisEventLog } from '../../src/event-log/redis-event-log.js';
import { connectRedis, createRedisClient } from '../../src/redis/redis-client.js';
import { createRedisListener } from '../../src/redis/redis-listener.js';
import { ask, nextWithin, paymentEvent } from '../support/cluster-pubsub.js';
import { startReplicatedCluster } from '../support/fault-redis.js';
import { track } from '../support/leftovers.js';

const logger = createLogger({ level: 'silent' });
const COMMAND_TIMEOUT_MS = 500;

/** An event log whose listener goes to `listenerNode`, and whose reconcile runs every second. */
async function pubsubOn(connection: RedisConnectionSettings, keyPrefix: string, listenerNode: number) {
  const redis = createRedisClient({ connection, commandTimeoutMs: COMMAND_TIMEOUT_MS, logger, role: 'test' });
  const listener = createRedisListener({
    connection: { ...connection, nodes: [{ host: '127.0.0.1', port: listenerNode }] },
    commandTimeoutMs: COMMAND_TIMEOUT_MS,
    logger,
    role: 'test-listener',
  });
  await Promise.all([connectRedis(redis), connectRedis(listener)]);
  const eventLog = createRedisEventLog({
    redis,
    listener,
    keyPrefix,
    clock: Date.now,
    retentionMs: 3_600_000,
    logger,
    reconcileIntervalMs: 1_000,
  });
  track(async () => {
    await eventLog.close();
    redis.disconnect();
    listener.disconnect();
  });
  return eventLog;
}

describe('the event reader on a Cluster when the node holding its listener stalls', () => {
  it('keeps reading the followed streams (the reconcile) although it cannot subscribe there', async () => {
    const cluster = await startReplicatedCluster();
    track(() => cluster.stop());
    const ports = cluster.connection.nodes.map((node) => node.port);
    const roles = await Promise.all(ports.map(async (port) => ((await ask(port, 'ROLE')) as [string])[0]));
    // A replica: frozen, it fails over nothing, so the user's stream stays writable and readable.
    const replica = ports[roles.indexOf('slave')]!;
    const keyPrefix = `ofg-test-${randomBytes(4).toString('hex')}:`;
    const reader = await pubsubOn(cluster.connection, keyPrefix, replica);
    const writer = await pubsubOn(
      cluster.connection,
      keyPrefix,
      ports.find((port) => port !== replica)!,
    );
    const live = reader.subscribe('user_stall');
    await live.started;
    const first = await writer.publish('user_stall', paymentEvent('before'));
    expect(await nextWithin(live, 5_000)).toMatchObject({ cursor: first });

    // The connection stays open to a node that answers nothing: no announcement, no SUBSCRIBE.
    await cluster.freeze(replica);
    const during = await writer.publish('user_stall', paymentEvent('during'));
    expect(await nextWithin(live, 5_000)).toMatchObject({ cursor: during });
    await live.return!();
  }, 60_000);
});
