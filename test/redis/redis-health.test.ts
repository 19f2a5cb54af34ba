import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createRedisClient } from '../../src/redis/redis-client.js';
import { createRedisHealthProbe } from '../../src/redis/redis-health.js';
import { track } from '../support/leftovers.js';
import { SHARED_REDIS } from '../support/redis.js';

const logger = createLogger({ level: 'silent' });

async function connected(role: string) {
  const client = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role });
  await client.connect();
  track(() => client.disconnect());
  return client;
}

describe('the Redis readiness probe', () => {
  it('shares one round trip among concurrent probes, reuses it for a second, then probes again', async () => {
    const commands = await connected('test');
    const subscriber = await connected('test-subscriber');
    await subscriber.subscribe('ofg-test-health-probe');
    let now = 1_000_000;
    const probe = createRedisHealthProbe({ clients: [commands, subscriber], clock: () => now });
    const pings = [vi.spyOn(commands, 'ping'), vi.spyOn(subscriber, 'ping')];

    const answers = await Promise.all(Array.from({ length: 20 }, () => probe.check()));
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(pings.map((ping) => ping.mock.calls.length)).toEqual([1, 1]);
    now += 999;
    await probe.check();
    expect(pings.map((ping) => ping.mock.calls.length)).toEqual([1, 1]);
    now += 1;
    await probe.check();
    expect(pings.map((ping) => ping.mock.calls.length)).toEqual([2, 2]);
  });

  it('answers "redis: down" for a connection that is not connected, without sending anything', async () => {
    const commands = await connected('test');
    const closed = createRedisClient({ connection: SHARED_REDIS, commandTimeoutMs: 1_000, logger, role: 'closed' });
    const probe = createRedisHealthProbe({ clients: [commands, closed], clock: Date.now });
    expect(await probe.check()).toEqual({ ok: false, reason: 'redis: down' });
  });
});
